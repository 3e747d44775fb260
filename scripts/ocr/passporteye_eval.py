"""Runs PassportEye on a make-dataset folder; see scripts/ocr/passporteye-eval (the entry point)."""
import argparse
import glob
import json
import math
import os
import statistics
import sys
import time
import warnings


def main():
    ap = argparse.ArgumentParser(description="PassportEye read_mrz on every image of a make-dataset folder")
    ap.add_argument("dataset")
    ap.add_argument("--limit", type=int, default=0, help="only the first N images")
    ap.add_argument("--tessdata-dir", help="tessdata folder to pass to tesseract (default: tesseract's own)")
    ap.add_argument("--lang", help="tesseract language to pass (default: tesseract's default, eng)")
    args = ap.parse_args()

    warnings.filterwarnings("ignore", category=FutureWarning)  # scikit-image deprecations inside PassportEye
    import passporteye
    from passporteye import read_mrz
    from passporteye.mrz.text import MRZOCRCleaner

    extra = []
    if args.tessdata_dir:
        extra.append("--tessdata-dir %s" % os.path.abspath(args.tessdata_dir))
    if args.lang:
        extra.append("-l %s" % args.lang)
    extra = " ".join(extra)

    truths = sorted(glob.glob(os.path.join(args.dataset, "*.json")))
    if args.limit:
        truths = truths[: args.limit]
    if not truths:
        sys.exit("error: no NNNN.json ground truth in %s" % args.dataset)

    results = []
    for path in truths:
        with open(path) as f:
            truth = json.load(f)
        image = os.path.join(os.path.dirname(path), truth["image"])
        t0 = time.perf_counter()
        error = None
        try:
            mrz = read_mrz(image, extra_cmdline_params=extra)
        except Exception as e:  # PassportEye raises on some images; count them as not read
            mrz, error = None, "%s: %s" % (type(e).__name__, e)
        ms = (time.perf_counter() - t0) * 1000.0
        lines, fields = [], {}
        if mrz is not None:
            raw = mrz.aux.get("raw_text", "")
            try:
                lines = MRZOCRCleaner.apply(raw)
            except Exception:
                lines = [l for l in raw.splitlines() if l.strip()]
            fields = {
                "format": mrz.mrz_type,
                "document_number": (mrz.number or "").rstrip("<") if mrz.mrz_type else None,
                "birth_date": mrz.date_of_birth if mrz.mrz_type else None,
                "expiry_date": mrz.expiration_date if mrz.mrz_type else None,
                "valid_score": mrz.valid_score,
            }
        valid = bool(mrz is not None and getattr(mrz, "valid", False))
        key_ok = (bool(fields) and fields.get("document_number") == truth["document_number"]
                  and fields.get("birth_date") == truth["birth_date"]
                  and fields.get("expiry_date") == truth["expiry_date"])
        lines_ok = lines == truth["lines"]
        row = {
            "image": truth["image"], "level": truth["level"], "format": truth["format"],
            "found": mrz is not None, "lines": lines, "key_ok": key_ok, "lines_ok": lines_ok,
            "ms": round(ms, 1), "valid": valid,
            # A wrong key: an MRZ PassportEye reports valid (every check digit holds) whose key differs.
            "wrong_key": valid and not key_ok,
        }
        row.update({k: v for k, v in fields.items() if k != "format"})
        if error:
            row["error"] = error
        results.append(row)
        print(json.dumps(row), flush=True)

    def share(rows, key):
        return round(sum(1 for r in rows if r[key]) / len(rows), 4) if rows else None

    summary = {
        "tool": "passporteye %s" % getattr(passporteye, "__version__", "?"),
        "tesseract_params": extra or "default (eng)",
        "images": len(results),
        "found": share(results, "found"),
        "key_fields_ok": share(results, "key_ok"),
        "all_lines_ok": share(results, "lines_ok"),
        "ms_per_image_mean": round(statistics.mean(r["ms"] for r in results), 1),
        "ms_per_image_median": round(statistics.median(r["ms"] for r in results), 1),
        "ms_p95": sorted(r["ms"] for r in results)[max(0, math.ceil(0.95 * len(results)) - 1)],
        "ms_max": max(r["ms"] for r in results),
        "over_3s": sum(1 for r in results if r["ms"] > 3000),
        "wrong_keys": sum(1 for r in results if r["wrong_key"]),
        "by_level": {},
    }
    for level in sorted({r["level"] for r in results}):
        rows = [r for r in results if r["level"] == level]
        summary["by_level"][level] = {"images": len(rows), "key_fields_ok": share(rows, "key_ok"),
                                      "all_lines_ok": share(rows, "lines_ok")}
    print(json.dumps({"summary": summary}), flush=True)


if __name__ == "__main__":
    main()
