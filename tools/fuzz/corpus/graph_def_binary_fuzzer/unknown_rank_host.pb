
1
xPlaceholder"cpu*
dtype0*
shape:

NegNegx"cpu*
T0
'
IdentityIdentityNeg"cpu*
T0

NoOpNoOp	^Identity"cpu"