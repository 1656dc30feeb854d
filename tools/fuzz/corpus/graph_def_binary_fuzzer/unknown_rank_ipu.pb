
1
xPlaceholder"cpu*
dtype0*
shape:
%
NegNegx"/device:IPU:0*
T0
1
IdentityIdentityNeg"/device:IPU:0*
T0
&
NoOpNoOp	^Identity"/device:IPU:0"