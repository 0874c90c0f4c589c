#!/usr/bin/env python3
"""Trains the card index network from patch files written by `examples/card_patches.rs`.

One small convolutional network per kind of patch (`corner`: a card outline's corner window;
`loose`: a candidate index of the loose search). Each reads a patch of two planes (ink, redness)
and gives 13 ranks + "none" and 4 suits + "none". The network is exported to ONNX with its
two softmaxes joined into one output of 19 values, for OpenCV's DNN module.

    python3 models/train/train_index_net.py --kind loose --out models/card_index_loose.onnx PATCHES...

Deterministic on CPU for the same patches, seed and thread count (see --threads). Needs torch,
numpy and onnx (versions in models/train/requirements.txt).
"""

import argparse
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

RANKS = 14  # A..K and none
SUITS = 5  # C D H S and none
KINDS = {"corner": 0, "loose": 1}


def read_patches(paths, kind):
    """Patches of one kind from patch files: (x uint8 [n, planes, h, w], rank, suit, group)."""
    xs, ranks, suits, groups = [], [], [], []
    want = KINDS[kind]
    for path in paths:
        data = np.memmap(path, dtype=np.uint8, mode="r")
        if bytes(data[:4]) != b"CRP1":
            sys.exit(f"{path}: not a patch file (no CRP1 magic)")
        cw, ch, iw, ih, planes = struct.unpack("<5H", bytes(data[4:14]))
        lengths = {0: 4 + cw * ch * planes, 1: 4 + iw * ih * planes}
        w, h = (cw, ch) if want == 0 else (iw, ih)
        starts = []
        off = 14
        end = len(data)
        while off < end:
            k = int(data[off])
            if k not in lengths:
                sys.exit(f"{path}: bad record kind {k} at byte {off}")
            if k == want:
                starts.append(off)
            off += lengths[k]
        if off != end:
            sys.exit(f"{path}: truncated record at byte {off}")
        idx = np.array(starts, dtype=np.int64)
        n = w * h * planes
        heads = np.stack([data[idx + j] for j in range(4)], axis=1)
        body = np.empty((len(idx), n), dtype=np.uint8)
        for i in range(0, len(idx), 65536):
            part = idx[i : i + 65536]
            body[i : i + len(part)] = data[(part + 4)[:, None] + np.arange(n)[None, :]]
        xs.append(body.reshape(-1, planes, h, w))
        ranks.append(heads[:, 1].astype(np.int64))
        suits.append(heads[:, 2].astype(np.int64))
        groups.append(heads[:, 3].copy())
    return np.concatenate(xs), np.concatenate(ranks), np.concatenate(suits), np.concatenate(groups)


def conv(c_in, c_out, stride=1, separable=False):
    """A 3x3 convolution (or a depthwise 3x3 and a pointwise 1x1), batch norm and ReLU."""
    if separable and c_in > 2:
        return [
            nn.Conv2d(c_in, c_in, 3, stride=stride, padding=1, groups=c_in, bias=False),
            nn.BatchNorm2d(c_in),
            nn.ReLU(inplace=True),
            nn.Conv2d(c_in, c_out, 1, bias=False),
            nn.BatchNorm2d(c_out),
            nn.ReLU(inplace=True),
        ]
    return [nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True)]


class IndexNet(nn.Module):
    """3x3 convolution blocks, 2x2 max pooling between them (the first may instead stride by
    two), then one hidden layer and the two heads."""

    def __init__(self, planes, h, w, widths, hidden, first_stride=1, separable=False):
        super().__init__()
        layers = conv(planes, widths[0], first_stride)
        c = widths[0]
        down = first_stride
        for width in widths[1:]:
            layers.append(nn.MaxPool2d(2))
            down *= 2
            layers += conv(c, width, separable=separable)
            c = width
        self.features = nn.Sequential(*layers)
        self.flat = c * (h // down) * (w // down)
        self.hidden = nn.Linear(self.flat, hidden)
        self.drop = nn.Dropout(0.3)
        self.rank = nn.Linear(hidden, RANKS)
        self.suit = nn.Linear(hidden, SUITS)

    def embed(self, x):
        """The hidden layer: what the heads read, and what an enrolled deck is compared by."""
        x = self.features(x)
        x = torch.flatten(x, 1)
        return F.relu(self.hidden(x))

    def forward(self, x):
        x = self.drop(self.embed(x))
        return self.rank(x), self.suit(x)


class Exported(nn.Module):
    """The trained network as OpenCV runs it: bytes scaled to 0..1 outside, softmaxes inside;
    outputs `reading` [n, 19] (ranks A..K, none; suits C D H S, none) and `embedding` [n, hidden]."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        e = self.net.embed(x)
        r, s = self.net.rank(e), self.net.suit(e)
        return torch.cat([F.softmax(r, dim=1), F.softmax(s, dim=1)], dim=1), e


class OnnxTeacher(nn.Module):
    """A network as exported (`Exported`, transposed or not, see `transpose_net.py`) read back
    from its ONNX file, to teach another: its convolutions, poolings and layers run in PyTorch
    and it gives the logits of its rank and suit heads. The shipped networks' PyTorch files
    were not kept; their ONNX files hold the same weights (batch norms folded in)."""

    def __init__(self, path, h, w):
        super().__init__()
        import onnx
        from onnx import numpy_helper

        model = onnx.load(path)
        graph = model.graph
        dims = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim]
        if dims[1] != 2 or sorted(dims[2:]) != sorted([h, w]):
            sys.exit(f"{path}: reads {dims[1:]} patches, not 2 x {h} x {w}")
        self.transposed = dims[2:] == [w, h] and h != w
        weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in graph.initializer}
        self.nodes = []
        for node in graph.node:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            self.nodes.append((node.op_type, list(node.input), list(node.output), attrs))
        for name, tensor in weights.items():
            self.register_buffer(name.replace(".", "_").replace(":", "_"), tensor)
        self.weights = {name: name.replace(".", "_").replace(":", "_") for name in weights}
        # The logits are the inputs of the two Softmax nodes, rank's first.
        self.logits = [n[1][0] for n in self.nodes if n[0] == "Softmax"]
        if len(self.logits) != 2:
            sys.exit(f"{path}: expected two Softmax heads")

    def forward(self, x):
        if self.transposed:
            x = x.transpose(2, 3)
        values = {self.nodes[0][1][0]: x}
        get = lambda name: values[name] if name in values else getattr(self, self.weights[name])
        for op, inputs, outputs, attrs in self.nodes:
            if op == "Conv":
                bias = get(inputs[2]) if len(inputs) > 2 else None
                y = F.conv2d(get(inputs[0]), get(inputs[1]), bias, attrs["strides"], attrs["pads"][:2])
            elif op == "Relu":
                y = F.relu(get(inputs[0]))
            elif op == "MaxPool":
                y = F.max_pool2d(get(inputs[0]), attrs["kernel_shape"], attrs["strides"])
            elif op == "Flatten":
                y = torch.flatten(get(inputs[0]), 1)
            elif op == "Gemm":
                y = F.linear(get(inputs[0]), get(inputs[1]), get(inputs[2]))
            elif op in ("Softmax", "Concat", "Identity"):
                continue
            else:
                sys.exit(f"teacher: unsupported node {op}")
            values[outputs[0]] = y
        return values[self.logits[0]], values[self.logits[1]]


def load_onnx_weights(net, path, h, w):
    """Sets `net` (an `IndexNet` of the same shape, unfolded) to the weights of an exported ONNX
    file that reads patches as they are cut (not transposed): each convolution's weight, and its
    bias as the batch norm's shift with the norm itself made the identity (the export folded
    the norms into the convolutions)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    if dims[2:] != [h, w]:
        sys.exit(f"{path}: reads {dims[2]} x {dims[3]} patches, not {h} x {w} (a transposed file?)")
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    ours = [m for m in net.features if isinstance(m, nn.Conv2d)]
    norms = [m for m in net.features if isinstance(m, nn.BatchNorm2d)]
    if len(convs) != len(ours) or len(norms) != len(ours) or len(gemms) != 3:
        sys.exit(f"{path}: {len(convs)} convolutions and {len(gemms)} layers, not this network's shape")
    with torch.no_grad():
        for node, c, bn in zip(convs, ours, norms):
            c.weight.copy_(weights[node.input[1]])
            bn.weight.fill_(1.0)
            bn.bias.copy_(weights[node.input[2]])
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for node, layer in zip(gemms, (net.hidden, net.rank, net.suit)):
            layer.weight.copy_(weights[node.input[1]])
            layer.bias.copy_(weights[node.input[2]])


def pruned(whole, small, sample):
    """`small` (narrower convolutions, the same hidden layer) set to the channels of `whole`
    that matter most: each channel weighed by its mean output over `sample` times the summed
    size of the weights that read it in the next layer (how much of the next layer's input it
    makes), the heaviest kept. A start for distillation, much nearer the whole network than
    random weights."""
    convs = lambda net: [m for m in net.features if isinstance(m, nn.Conv2d)]
    norms = lambda net: [m for m in net.features if isinstance(m, nn.BatchNorm2d)]
    whole.eval()
    means = []
    with torch.no_grad():
        x = sample
        for m in whole.features:
            x = m(x)
            if isinstance(m, nn.ReLU):
                means.append(x.mean(dim=(0, 2, 3)))
    big, little = convs(whole), convs(small)
    kept = []
    for i, (b, l) in enumerate(zip(big, little)):
        if i + 1 < len(big):
            reads = big[i + 1].weight.abs().sum(dim=(0, 2, 3))
        else:
            area = whole.hidden.in_features // b.out_channels
            reads = whole.hidden.weight.abs().view(-1, b.out_channels, area).sum(dim=(0, 2))
        order = torch.argsort(means[i] * reads, descending=True)
        kept.append(torch.sort(order[: l.out_channels]).values)
    with torch.no_grad():
        inputs = torch.arange(big[0].in_channels)
        for b, l, bn_b, bn_l, out in zip(big, little, norms(whole), norms(small), kept):
            l.weight.copy_(b.weight[out][:, inputs])
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(bn_l, name).copy_(getattr(bn_b, name)[out])
            inputs = out
        area = whole.hidden.in_features // big[-1].out_channels
        columns = (kept[-1].view(-1, 1) * area + torch.arange(area).view(1, -1)).flatten()
        small.hidden.weight.copy_(whole.hidden.weight[:, columns])
        small.hidden.bias.copy_(whole.hidden.bias)
        for name in ("rank", "suit"):
            getattr(small, name).load_state_dict(getattr(whole, name).state_dict())
    small.train()
    return small


def blurred(x, gen):
    """The patches blurred as a small, soft index is once cut and scaled to the patch (a random
    Gaussian of 0.6 to 2 patch pixels), then stretched again so that the darkest ink is as dark
    as before, as `patch::normalise` stretches what it cuts."""
    sigma = 0.6 + 1.4 * float(torch.rand(1, generator=gen))
    r = int(3 * sigma + 0.5)
    t = torch.arange(-r, r + 1, dtype=torch.float32)
    k = torch.exp(-(t * t) / (2 * sigma * sigma))
    k = k / k.sum()
    planes = x.shape[1]
    out = F.conv2d(F.pad(x, (r, r, 0, 0), mode="replicate"), k.view(1, 1, 1, -1).repeat(planes, 1, 1, 1), groups=planes)
    out = F.conv2d(F.pad(out, (0, 0, r, r), mode="replicate"), k.view(1, 1, -1, 1).repeat(planes, 1, 1, 1), groups=planes)
    before = x[:, :1].amax(dim=(2, 3), keepdim=True)
    after = out[:, :1].amax(dim=(2, 3), keepdim=True).clamp(min=1e-3)
    return (out * (before / after)).clamp(0, 1)


def augment(x, gen, blur=0.0):
    """Random shifts of up to two pixels (the whole batch alike), ink contrast and noise; a share
    `blur` of the batches blurred first."""
    if blur > 0 and float(torch.rand(1, generator=gen)) < blur:
        x = blurred(x, gen)
    n, _, h, w = x.shape
    dx = int(torch.randint(-2, 3, (1,), generator=gen))
    dy = int(torch.randint(-2, 3, (1,), generator=gen))
    x = torch.roll(x, shifts=(dy, dx), dims=(2, 3))
    gain = 0.75 + 0.45 * torch.rand(n, 1, 1, 1, generator=gen)
    x = (x * gain + 0.03 * torch.randn(x.shape, generator=gen)).clamp(0, 1)
    return x


def evaluate(net, x, rank, suit, batch=2048):
    net.eval()
    correct_card = correct_none = n_card = n_none = 0
    with torch.no_grad():
        for i in range(0, len(x), batch):
            xb = torch.from_numpy(x[i : i + batch]).float() / 255.0
            r, s = net(xb)
            pr, ps = r.argmax(1).numpy(), s.argmax(1).numpy()
            tr, ts = rank[i : i + batch], suit[i : i + batch]
            is_card = tr != RANKS - 1
            correct_card += int(((pr == tr) & (ps == ts) & is_card).sum())
            n_card += int(is_card.sum())
            correct_none += int(((pr == RANKS - 1) & ~is_card).sum())
            n_none += int((~is_card).sum())
    net.train()
    return correct_card / max(n_card, 1), correct_none / max(n_none, 1), n_card, n_none


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("patches", nargs="+")
    ap.add_argument("--kind", choices=KINDS, required=True)
    ap.add_argument("--out", required=True, help="ONNX file to write")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--widths", default="16,32,64,64")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--first-stride", type=int, default=1)
    ap.add_argument("--separable", action="store_true")
    ap.add_argument("--export-only", action="store_true", help="write the untrained network (to time it)")
    ap.add_argument("--save", help="also save the trained network for PyTorch (to teach another)")
    ap.add_argument("--teacher", help="a network saved with --save whose outputs the new one learns too")
    ap.add_argument("--teacher-onnx", help="the same from an exported ONNX file (see OnnxTeacher)")
    ap.add_argument("--export-from", help="export a network saved with --save (patches unused)")
    ap.add_argument("--shape", help="WxH of the patches when --export-only or --export-from")
    ap.add_argument("--init", help="a network saved with --save to go on training (same shape)")
    ap.add_argument("--init-onnx", help="the same from an exported ONNX file, not transposed (see load_onnx_weights)")
    ap.add_argument(
        "--prune-onnx",
        help="start from this exported ONNX file (not transposed) of a network of the default shape, keeping "
        "in each convolution only the --widths channels that matter most (see `pruned`)",
    )
    ap.add_argument("--blur", type=float, default=0.0, help="share of batches blurred (see `blurred`)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(args.seed)

    if args.export_from:
        w, h = (int(v) for v in args.shape.split("x"))
        saved = torch.load(args.export_from, weights_only=False)
        net = IndexNet(2, h, w, **saved["config"])
        net.load_state_dict(saved["state"])
        export(net, h, w, args.out)
        return
    if args.export_only:
        w, h = (int(v) for v in args.shape.split("x"))
        net = IndexNet(2, h, w, [int(v) for v in args.widths.split(",")], args.hidden, args.first_stride, args.separable)
        # Batch norms left at their initial values share constants, which the exporter ties
        # with Identity nodes that OpenCV 4.6 cannot read; trained ones never do.
        with torch.no_grad():
            for m in net.modules():
                if isinstance(m, nn.BatchNorm2d):
                    for t in (m.weight, m.bias, m.running_mean):
                        t.uniform_(0.5, 1.5)
                    m.running_var.uniform_(0.5, 1.5)
        export(net, h, w, args.out)
        return
    x, rank, suit, group = read_patches(args.patches, args.kind)
    planes, h, w = x.shape[1:]
    train, held = group == 0, group == 1
    print(f"{args.kind}: {len(x)} patches ({int((rank != 13).sum())} of cards), {int(held.sum())} held out; {w}x{h}x{planes}")
    xt, rt, st = x[train], rank[train], suit[train]
    xv, rv, sv = x[held], rank[held], suit[held]

    widths = [int(v) for v in args.widths.split(",")]
    net = IndexNet(planes, h, w, widths, args.hidden, args.first_stride, args.separable)
    if args.init:
        net.load_state_dict(torch.load(args.init, weights_only=False)["state"])
    elif args.init_onnx:
        load_onnx_weights(net, args.init_onnx, h, w)
    elif args.prune_onnx:
        whole = IndexNet(planes, h, w, [int(v) for v in ap.get_default("widths").split(",")], args.hidden)
        load_onnx_weights(whole, args.prune_onnx, h, w)
        sample = torch.from_numpy(xt[torch.randperm(len(xt), generator=gen)[:4096].numpy()]).float() / 255.0
        net = pruned(whole, net, sample)
    teacher = None
    if args.teacher:
        saved = torch.load(args.teacher, weights_only=False)
        teacher = IndexNet(planes, h, w, **saved["config"])
        teacher.load_state_dict(saved["state"])
        teacher.eval()
    elif args.teacher_onnx:
        teacher = OnnxTeacher(args.teacher_onnx, h, w)
    print(f"{sum(p.numel() for p in net.parameters())} parameters")
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * (len(xt) // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    step = 0
    for epoch in range(args.epochs):
        start = time.time()
        order = torch.randperm(len(xt), generator=gen).numpy()
        total = 0.0
        for i in range(0, len(order) - args.batch + 1, args.batch):
            b = order[i : i + args.batch]
            xb = augment(torch.from_numpy(xt[b]).float() / 255.0, gen, args.blur)
            r, s = net(xb)
            loss = F.cross_entropy(r, torch.from_numpy(rt[b]), label_smoothing=0.05) + F.cross_entropy(
                s, torch.from_numpy(st[b]), label_smoothing=0.05
            )
            if teacher is not None:
                with torch.no_grad():
                    tr, ts = teacher(xb)
                loss = 0.5 * loss + 0.5 * 4.0 * (soft_kl(r, tr) + soft_kl(s, ts))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            total += float(loss)
        cards, nones, nc, nn_ = evaluate(net, xv, rv, sv)
        print(
            f"epoch {epoch + 1}: loss {total / max(1, len(order) // args.batch):.4f}, held-out fonts: "
            f"cards {cards:.4f} of {nc}, none {nones:.4f} of {nn_} ({time.time() - start:.0f} s)",
            flush=True,
        )

    export(net, h, w, args.out)
    if args.save:
        config = dict(widths=widths, hidden=args.hidden, first_stride=args.first_stride, separable=args.separable)
        torch.save({"config": config, "state": net.state_dict()}, args.save)


def soft_kl(student, teacher, t=2.0):
    """How far the student's softened outputs are from the teacher's (Hinton's distillation)."""
    return F.kl_div(F.log_softmax(student / t, dim=1), F.softmax(teacher / t, dim=1), reduction="batchmean")


def export(net, h, w, out):
    """Writes the network as OpenCV reads it, before `transpose_net.py` transposes it."""
    net.eval()
    exported = Exported(net)
    dummy = torch.zeros(1, 2, h, w)
    torch.onnx.export(
        exported,
        dummy,
        out,
        input_names=["patch"],
        output_names=["reading", "embedding"],
        dynamic_axes={"patch": {0: "n"}, "reading": {0: "n"}, "embedding": {0: "n"}},
        opset_version=11,
        do_constant_folding=True,
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
