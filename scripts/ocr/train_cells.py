#!/usr/bin/python3
"""Trains the MRZ cell model (Models/mrz-cells.bin) from labelled cells.

Usage: scripts/ocr/train_cells.py TRAIN.bin VALIDATION.bin OUT.bin [--epochs N] [--seed S]

TRAIN.bin and VALIDATION.bin are written by `passport-bench ocr-cells` on pages of the tuning
generator (scripts/ocr/make-dataset) at different seeds: per cell one label byte (index in
A-Z 0-9 <) and 16 x 24 ink bytes. Called by scripts/ocr/train-cell-model; never give it pages of
the evaluation generator or real photos.

The network: 384 inputs, two ReLU layers (256, 128), softmax over 37 characters; Adam on
cross-entropy, classes sampled evenly (fillers would otherwise swamp the rare letters), every
batch freshly distorted (shifts of a pixel, bolder and thinner strokes, blur, contrast, noise,
stains, condensed or expanded glyphs) so that the model does not learn one printer. Plain numpy, deterministic for a seed.
OUT.bin is the format CellClassifier reads (see Sources/MRZScanner/CellClassifier.swift).
"""
import argparse
import struct
import sys

import numpy as np

W, H = 16, 24
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
LAYERS = [W * H, 256, 128, len(ALPHABET)]


def load(path):
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size % (1 + W * H):
        sys.exit("error: %s is not a cell file (size %d)" % (path, raw.size))
    records = raw.reshape(-1, 1 + W * H)
    return records[:, 1:].astype(np.float32) / 255.0, records[:, 0].astype(np.int64)


def shift(batch, dx, dy):
    """Patches moved by dx, dy pixels, paper brought in."""
    out = np.roll(batch, (dy, dx), axis=(1, 2))
    if dy > 0:
        out[:, :dy, :] = 0
    elif dy < 0:
        out[:, dy:, :] = 0
    if dx > 0:
        out[:, :, :dx] = 0
    elif dx < 0:
        out[:, :, dx:] = 0
    return out


def rescale(p, sx, sy):
    """Each patch scaled about its centre by sx, sy (per patch), bilinearly; paper outside."""
    n = p.shape[0]
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    src_x = (xs[None] - (W - 1) / 2) / sx[:, None, None] + (W - 1) / 2
    src_y = (ys[None] - (H - 1) / 2) / sy[:, None, None] + (H - 1) / 2
    x0, y0 = np.floor(src_x).astype(int), np.floor(src_y).astype(int)
    fx, fy = src_x - x0, src_y - y0
    padded = np.pad(p, ((0, 0), (1, 2), (1, 2)))
    idx = np.arange(n)[:, None, None]

    def at(yy, xx):
        return padded[idx, np.clip(yy + 1, 0, H + 2), np.clip(xx + 1, 0, W + 2)]
    return ((1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x0 + 1)) + fy * ((1 - fx) * at(y0 + 1, x0) + fx * at(y0 + 1, x0 + 1))).astype(np.float32)


def distort(rng, x):
    """Random distortions of a batch of patches (n, 384) in 0..1."""
    n = x.shape[0]
    p = x.reshape(n, H, W).copy()
    # Condensed or expanded print, a cap or base line fitted a little off.
    scaled = rng.random(n) < 0.5
    if scaled.any():
        k = int(scaled.sum())
        p[scaled] = rescale(p[scaled], rng.uniform(0.85, 1.12, k).astype(np.float32), rng.uniform(0.9, 1.08, k).astype(np.float32))
    # Shift by up to a pixel (the grid is fitted, not exact).
    moves = rng.integers(0, 9, n)
    for move in range(9):
        pick = moves == move
        if move != 4 and pick.any():
            p[pick] = shift(p[pick], move % 3 - 1, move // 3 - 1)
    # Bolder or thinner strokes: the max or min with a one-pixel shifted copy.
    bold = rng.random(n) < 0.2
    p[bold] = np.maximum(p[bold], shift(p[bold], 1, 0))
    thin = rng.random(n) < 0.2
    p[thin] = np.minimum(p[thin], shift(p[thin], 1, 0))
    # Blur: a mix with the 3x3 average.
    blur = rng.random(n) < 0.3
    if blur.any():
        q = p[blur]
        avg = sum(shift(q, dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)) / 9.0
        a = rng.uniform(0.3, 1.0, (q.shape[0], 1, 1)).astype(np.float32)
        p[blur] = (1 - a) * q + a * avg
    # Contrast and levels: faint or heavy print, a greyish paper.
    gain = rng.uniform(0.6, 1.3, (n, 1, 1)).astype(np.float32)
    floor = rng.uniform(-0.1, 0.15, (n, 1, 1)).astype(np.float32) * (rng.random((n, 1, 1)) < 0.3)
    p = p * gain + floor
    # Sensor noise and the odd stain.
    p += rng.normal(0, 1, p.shape).astype(np.float32) * rng.uniform(0, 0.08, (n, 1, 1)).astype(np.float32)
    stain = rng.random(n) < 0.05
    if stain.any():
        k = int(stain.sum())
        cy, cx = rng.integers(0, H, k), rng.integers(0, W, k)
        yy, xx = np.mgrid[0:H, 0:W]
        blob = ((yy[None] - cy[:, None, None]) ** 2 + (xx[None] - cx[:, None, None]) ** 2 < rng.integers(2, 9, (k, 1, 1)))
        p[stain] = np.maximum(p[stain], blob * rng.uniform(0.3, 0.8, (k, 1, 1)))
    return np.clip(p, 0, 1).reshape(n, H * W).astype(np.float32)


def init(rng):
    params = []
    for fan_in, fan_out in zip(LAYERS, LAYERS[1:]):
        params.append([rng.normal(0, np.sqrt(2.0 / fan_in), (fan_in, fan_out)).astype(np.float32),
                       np.zeros(fan_out, np.float32)])
    return params


def forward(params, x):
    acts = [x]
    for i, (w, b) in enumerate(params):
        z = acts[-1] @ w + b
        acts.append(np.maximum(z, 0) if i < len(params) - 1 else z)
    return acts


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def accuracy(params, x, y):
    pred = np.concatenate([forward(params, x[i:i + 4096])[-1].argmax(1) for i in range(0, len(x), 4096)])
    return float((pred == y).mean()), pred


def train(x, y, xv, yv, epochs, seed):
    rng = np.random.default_rng(seed)
    params = init(rng)
    moments = [[np.zeros_like(t) for t in layer] for layer in params]
    velocities = [[np.zeros_like(t) for t in layer] for layer in params]
    by_class = [np.where(y == c)[0] for c in range(len(ALPHABET))]
    present = [c for c in range(len(ALPHABET)) if len(by_class[c])]
    batch, steps_per_epoch = 256, max(200, len(x) // 256)
    lr, beta1, beta2, eps, decay, step = 2e-3, 0.9, 0.999, 1e-8, 1e-5, 0
    for epoch in range(epochs):
        rate = lr * (0.5 ** (epoch / max(1, epochs / 4)))
        for _ in range(steps_per_epoch):
            # Half the batch evenly over the classes, half as the data come (fillers, digits).
            classes = rng.choice(present, batch // 2)
            even = np.array([by_class[c][rng.integers(len(by_class[c]))] for c in classes])
            picks = np.concatenate([even, rng.integers(0, len(x), batch - batch // 2)])
            xb, yb = distort(rng, x[picks]), y[picks]
            acts = forward(params, xb)
            grad = softmax(acts[-1])
            grad[np.arange(len(yb)), yb] -= 1
            grad /= len(yb)
            step += 1
            for i in reversed(range(len(params))):
                w, b = params[i]
                gw, gb = acts[i].T @ grad + decay * w, grad.sum(0)
                if i > 0:
                    grad = (grad @ w.T) * (acts[i] > 0)
                for j, g in enumerate((gw, gb)):
                    moments[i][j] = beta1 * moments[i][j] + (1 - beta1) * g
                    velocities[i][j] = beta2 * velocities[i][j] + (1 - beta2) * g * g
                    mhat = moments[i][j] / (1 - beta1 ** step)
                    vhat = velocities[i][j] / (1 - beta2 ** step)
                    params[i][j] -= rate * mhat / (np.sqrt(vhat) + eps)
        acc, _ = accuracy(params, xv, yv)
        print("epoch %d: validation accuracy %.4f" % (epoch + 1, acc), file=sys.stderr)
    return params


def write(params, path):
    with open(path, "wb") as f:
        f.write(b"MRZC" + struct.pack("<IIII", 1, W, H, len(params)))
        for w, b in params:
            f.write(struct.pack("<II", w.shape[1], w.shape[0]))
            f.write(np.ascontiguousarray(w.T, dtype="<f4").tobytes())
            f.write(np.asarray(b, dtype="<f4").tobytes())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("train")
    ap.add_argument("validation")
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=16)
    ap.add_argument("--seed", type=int, default=9303)
    args = ap.parse_args()
    x, y = load(args.train)
    xv, yv = load(args.validation)
    print("%d training cells, %d validation cells" % (len(x), len(xv)), file=sys.stderr)
    params = train(x, y, xv, yv, args.epochs, args.seed)
    acc, pred = accuracy(params, xv, yv)
    confusions = {}
    for t, p in zip(yv, pred):
        if t != p:
            key = ALPHABET[t] + "->" + ALPHABET[p]
            confusions[key] = confusions.get(key, 0) + 1
    top = sorted(confusions.items(), key=lambda kv: -kv[1])[:12]
    print("validation: %.4f of %d cells right; commonest confusions: %s" % (acc, len(xv), ", ".join("%s %d" % kv for kv in top)))
    write(params, args.out)


if __name__ == "__main__":
    main()
