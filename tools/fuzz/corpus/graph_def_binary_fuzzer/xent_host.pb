
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
^
SoftmaxCrossEntropyWithLogitsSoftmaxCrossEntropyWithLogitsfeatureslabels"cpu*
T0"