
3
aPlaceholder"cpu*
shape:*
dtype0
3
bPlaceholder"cpu*
shape:*
dtype0
3
cPlaceholder"cpu*
shape:*
dtype0
(
AddAddac"/device:IPU:0*
T0
*
Add_1Addab"/device:IPU:0*
T0
0
Add_2AddAdd_1Add"/device:IPU:0*
T0"