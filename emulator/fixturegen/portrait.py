"""A synthetic passport-style portrait drawn with PIL (no real person, fixed RNG seed)."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageChops, ImageDraw, ImageFilter

WIDTH, HEIGHT = 413, 531  # 35 x 45 mm at 300 dpi
SEED = 9303
SS = 3  # supersampling factor for smooth edges


def _noise(rng: random.Random, size: tuple[int, int], amplitude: int, blur: float) -> Image.Image:
    w, h = size
    raw = Image.frombytes("L", size, rng.randbytes(w * h))
    if blur:
        raw = raw.filter(ImageFilter.GaussianBlur(blur))
        # blurring pulls values towards the mean; stretch them back
        raw = raw.point(lambda v: max(0, min(255, 128 + (v - 128) * 3)))
    return raw.point(lambda v: v * (2 * amplitude) // 255)


def draw(seed: int = SEED) -> Image.Image:
    rng = random.Random(seed)
    W, H = WIDTH * SS, HEIGHT * SS
    img = Image.new("RGB", (W, H))
    d = ImageDraw.Draw(img)

    # plain light background with a faint vertical gradient
    for y in range(H):
        t = y / H
        d.line([(0, y), (W, y)], fill=(int(228 - 10 * t), int(232 - 8 * t), int(236 - 4 * t)))

    cx = W // 2
    u = SS * 1.35          # one "face unit" in supersampled pixels
    top = H * 0.045        # crown of the hair

    def box(x0, y0, x1, y1):
        return [cx + x0 * u, top + y0 * u, cx + x1 * u, top + y1 * u]

    def pt(x, y):
        return (cx + x * u, top + y * u)

    skin = (224, 182, 150)
    skin_shadow = (200, 156, 126)
    hair = (92, 60, 38)
    cloth = (44, 58, 84)

    # shoulders and upper body
    d.ellipse(box(-240, 335, 240, 620), fill=cloth)
    d.rounded_rectangle(box(-175, 352, 175, 520), radius=int(50 * u), fill=cloth)
    d.polygon([pt(-42, 330), pt(42, 330), pt(0, 395)], fill=(236, 236, 240))
    # neck
    d.rectangle(box(-40, 240, 40, 345), fill=skin_shadow)
    d.polygon([pt(-40, 330), pt(40, 330), pt(0, 375)], fill=skin_shadow)

    # hair behind the head, reaching the shoulders
    d.ellipse(box(-122, 0, 122, 250), fill=hair)
    d.rectangle(box(-122, 110, 122, 320), fill=hair)
    d.ellipse(box(-122, 290, -58, 352), fill=hair)
    d.ellipse(box(58, 290, 122, 352), fill=hair)

    # ears
    d.ellipse(box(-107, 120, -80, 178), fill=skin_shadow)
    d.ellipse(box(80, 120, 107, 178), fill=skin_shadow)
    # face
    d.ellipse(box(-94, 25, 94, 272), fill=skin)
    # fringe
    d.chord(box(-100, 8, 100, 130), start=180, end=360, fill=hair)

    # eyes (centres are the 19794-5 feature points 12.1 / 12.2 written to DG2)
    eye_y = H * EYE_Y
    for side in (-1, 1):
        ex = W / 2 + side * EYE_DX * SS
        def eb(x0, y0, x1, y1):
            return [ex + x0 * u, eye_y + y0 * u, ex + x1 * u, eye_y + y1 * u]
        d.ellipse(eb(-20, -8, 20, 8), fill=(250, 250, 250))
        d.ellipse(eb(-8, -8, 8, 8), fill=(88, 110, 70))
        d.ellipse(eb(-3.5, -3.5, 3.5, 3.5), fill=(20, 20, 20))
        d.arc(eb(-22, -11, 22, 11), start=190, end=350, fill=(70, 50, 40), width=int(2 * u))
        d.arc(eb(-26, -32, 26, -6), start=200, end=340, fill=hair, width=int(5 * u))

    # nose
    ny = eye_y + 58 * u
    d.line([(cx + 2 * u, eye_y + 10 * u), (cx + 8 * u, ny)], fill=skin_shadow, width=int(3 * u))
    d.arc([cx - 15 * u, ny - 10 * u, cx + 15 * u, ny + 8 * u], start=20, end=160, fill=(176, 130, 104), width=int(3 * u))
    # mouth (neutral expression)
    my = ny + 38 * u
    d.ellipse([cx - 28 * u, my - 6 * u, cx + 28 * u, my + 7 * u], fill=(184, 108, 100))
    d.line([(cx - 28 * u, my + 1 * u), (cx + 28 * u, my + 1 * u)], fill=(130, 70, 66), width=int(2 * u))

    img = img.resize((WIDTH, HEIGHT), Image.LANCZOS)

    # soft shading on the face and some sensor-like grain so the JPEG is not trivially small
    shade = Image.new("L", (WIDTH, HEIGHT), 0)
    ImageDraw.Draw(shade).ellipse([WIDTH // 2 + 25, int(HEIGHT * 0.16), WIDTH // 2 + 125, int(HEIGHT * 0.66)], fill=40)
    shade = shade.filter(ImageFilter.GaussianBlur(25))
    img = ImageChops.subtract(img, Image.merge("RGB", [shade] * 3))
    grain = _noise(rng, (WIDTH, HEIGHT), 9, 0.7)
    img = ImageChops.add(img, Image.merge("RGB", [grain] * 3), scale=1.0, offset=-9)
    chroma = _noise(rng, (WIDTH, HEIGHT), 3, 1.5)
    r, g, b = img.split()
    r = ImageChops.add(r, chroma, offset=-3)
    b = ImageChops.subtract(b, chroma, offset=-3)
    return Image.merge("RGB", (r, g, b))


EYE_Y = 0.40    # fraction of the height
EYE_DX = 50     # half the inter-eye distance, in output pixels


def eye_centres() -> list[tuple[int, int]]:
    """(x, y) of the left and right eye centres in the output image (subject's left = image right)."""
    y = round(HEIGHT * EYE_Y)
    return [(WIDTH // 2 + EYE_DX, y), (WIDTH // 2 - EYE_DX, y)]


def jpeg(image: Image.Image, quality: int) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=quality, optimize=True, subsampling="4:2:0", dpi=(300, 300))
    return buf.getvalue()


def jpeg_near(image: Image.Image, target: int) -> tuple[bytes, int]:
    """The JPEG whose size is closest to `target` bytes, searching the quality setting."""
    best = None
    for q in range(20, 96):
        data = jpeg(image, q)
        if best is None or abs(len(data) - target) < abs(len(best[0]) - target):
            best = (data, q)
    return best
