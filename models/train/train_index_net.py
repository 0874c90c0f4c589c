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
    ap.add_argument("--export-from", help="export a network saved with --save (patches unused)")
    ap.add_argument("--shape", help="WxH of the patches when --export-only or --export-from")
    ap.add_argument("--init", help="a network saved with --save to go on training (same shape)")
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
        export(net, 2, h, w, args.out)
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
        export(net, 2, h, w, args.out)
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
    teacher = None
    if args.teacher:
        saved = torch.load(args.teacher, weights_only=False)
        teacher = IndexNet(planes, h, w, **saved["config"])
        teacher.load_state_dict(saved["state"])
        teacher.eval()
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

    export(net, planes, h, w, args.out)
    if args.save:
        config = dict(widths=widths, hidden=args.hidden, first_stride=args.first_stride, separable=args.separable)
        torch.save({"config": config, "state": net.state_dict()}, args.save)


def soft_kl(student, teacher, t=2.0):
    """How far the student's softened outputs are from the teacher's (Hinton's distillation)."""
    return F.kl_div(F.log_softmax(student / t, dim=1), F.softmax(teacher / t, dim=1), reduction="batchmean")


def export(net, planes, h, w, out):
    net.eval()
    exported = Exported(net)
    dummy = torch.zeros(1, planes, h, w)
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
