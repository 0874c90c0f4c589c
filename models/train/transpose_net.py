#!/usr/bin/env python3
"""Writes an index network (as `train_index_net.py` exports it) that reads its patches transposed.

The network is the same function of the patch: each convolution's kernels are transposed, and the
hidden layer's weights are reordered to the transposed feature map. Only the layout changes:
OpenCV's DNN module runs convolutions and max pooling row by row, and the patches are taller than
wide (28 x 64 for a corner), so the transposed network, reading long rows, runs faster.

    python3 models/train/transpose_net.py IN.onnx OUT.onnx

Needs onnx and numpy (models/train/requirements.txt). The detector transposes each patch as it
fills the network's input (`index_net`).
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper


def attribute(node, name):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return None


def check_square(node):
    """Transposing is exact only when kernels, strides and pads treat both axes alike."""
    for name in ("kernel_shape", "strides", "dilations"):
        value = attribute(node, name)
        if value is not None and len(set(value)) != 1:
            sys.exit(f"{node.name or node.op_type}: {name} {value} differs between the axes")
    pads = attribute(node, "pads")
    if pads is not None and len(set(pads)) != 1:
        sys.exit(f"{node.name or node.op_type}: pads {pads} differ between the axes")


def feature_map(model, h, w):
    """The height and width of the map the Flatten node flattens, from the input's size."""
    for node in model.graph.node:
        if node.op_type in ("Conv", "MaxPool"):
            check_square(node)
            k = attribute(node, "kernel_shape")[0]
            s = (attribute(node, "strides") or [1])[0]
            p = (attribute(node, "pads") or [0])[0]
            h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        elif node.op_type == "Flatten":
            return node, h, w
        elif node.op_type not in ("Relu", "BatchNormalization"):
            sys.exit(f"unexpected {node.op_type} before the Flatten node")
    sys.exit("no Flatten node")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[2].strip())
    source, target = sys.argv[1:]
    model = onnx.load(source)
    graph = model.graph
    dims = graph.input[0].type.tensor_type.shape.dim
    h, w = dims[2].dim_value, dims[3].dim_value
    flatten, fh, fw = feature_map(model, h, w)
    weights = {t.name: t for t in graph.initializer}
    for node in graph.node:
        if node.op_type == "Conv":
            t = weights[node.input[1]]
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).transpose(0, 1, 3, 2).copy(), t.name))
    gemm = next(n for n in graph.node if n.op_type == "Gemm" and n.input[0] == flatten.output[0])
    if attribute(gemm, "transB") != 1:
        sys.exit("the hidden layer's Gemm is expected with transB = 1")
    t = weights[gemm.input[1]]
    hidden = numpy_helper.to_array(t)
    channels = hidden.shape[1] // (fh * fw)
    if channels * fh * fw != hidden.shape[1]:
        sys.exit(f"the hidden layer reads {hidden.shape[1]} values, not a multiple of {fh} x {fw}")
    reordered = hidden.reshape(-1, channels, fh, fw).transpose(0, 1, 3, 2).reshape(hidden.shape[0], -1)
    t.CopyFrom(numpy_helper.from_array(reordered.copy(), t.name))
    dims[2].dim_value, dims[3].dim_value = w, h
    onnx.checker.check_model(model)
    onnx.save(model, target)
    print(f"{source} ({w} x {h} patches) -> {target} ({h} x {w})")


if __name__ == "__main__":
    main()
