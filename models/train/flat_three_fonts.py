#!/usr/bin/env python3
"""Links the installed fonts whose "3" has a flat top (a bar, then a diagonal: the 3 of many
playing-card decks) into one folder, for `examples/card_patches.rs --fonts DIR`.

Such 3s are rare among text fonts (about one in twenty installed here), so the index networks
saw few of them and read a flat-topped 3 as a 5. Patches rendered from these fonts alone are
mixed into a fine-tuning run (models/README.md, "Flat-topped threes").

    python3 models/train/flat_three_fonts.py /usr/share/fonts /tmp/flat-three-fonts

A font counts when, drawn at 100 pixels, the top twenty-fifth of its "3" is inked across more
than 60 % of the glyph's width and in its left sixth (a round 3 begins with an arc, not a bar).
Fonts lacking the digit or the index letters (they would draw the missing-glyph box, itself
flat-topped) are left out, and so are two that no card index would use: a keyboard-key font
(each glyph in a box) and handwriting-lesson fonts (glyphs on ruled lines).
"""

import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

LEFT_OUT = ("LinBiolinum_K", "Abecedario")


def drawn(font, text):
    image = Image.new("L", (220, 220), 0)
    ImageDraw.Draw(image).text((40, 20), text, font=font, fill=255)
    return np.array(image) > 128


def flat_topped_three(path):
    try:
        font = ImageFont.truetype(path, 100)
        three, missing = drawn(font, "3"), drawn(font, "\ue000")
        if any((drawn(font, c) == missing).all() for c in "3AJQK"):
            return False
    except OSError:
        return False
    ys, xs = np.nonzero(three)
    if len(ys) < 50:
        return False
    glyph = three[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    h, w = glyph.shape
    top = glyph[: max(2, h // 25)]
    return top.any(axis=0).mean() > 0.6 and top[:, : max(1, w // 6)].any(axis=0).mean() > 0.5


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: flat_three_fonts.py FONT_DIR OUT_DIR")
    source, out = sys.argv[1:]
    paths = sorted(
        os.path.join(d, f)
        for d, _, files in os.walk(source)
        for f in files
        if f.lower().endswith((".ttf", ".otf"))
    )
    os.makedirs(out, exist_ok=True)
    kept = 0
    for path in paths:
        if any(name in path for name in LEFT_OUT) or not flat_topped_three(path):
            continue
        link = os.path.join(out, os.path.relpath(path, source).replace(os.sep, "_"))
        if not os.path.lexists(link):
            os.symlink(path, link)
        kept += 1
    print(f"{kept} of {len(paths)} fonts have a flat-topped 3 -> {out}")


if __name__ == "__main__":
    main()
