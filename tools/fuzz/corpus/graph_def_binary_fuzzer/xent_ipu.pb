
>
featuresPlaceholder"cpu*
dtype0*
shape
:
<
labelsPlaceholder"cpu*
shape
:*
dtype0
h
SoftmaxCrossEntropyWithLogitsSoftmaxCrossEntropyWithLogitsfeatureslabels"/device:IPU:0*
T0"