
3
aPlaceholder"cpu*
dtype0*
shape:
3
bPlaceholder"cpu*
dtype0*
shape:
3
cPlaceholder"cpu*
dtype0*
shape:

AddAddac"cpu*
T0
 
Add_1Addab"cpu*
T0
&
Add_2AddAdd_1Add"cpu*
T0"