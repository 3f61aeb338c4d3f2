#!/usr/bin/python3
"""tests/plot_text_inside.py SCRIPT [ARGS...]: runs a plotting script (a
tools/plot_*.py, an example) as `python3 SCRIPT ARGS...` would, and checks
every figure it saves: each visible text (titles, axis labels, tick labels,
legend entries) lies inside the figure, so nothing is cut at its edges. A
text outside is one line naming the script, the text and the two boxes, and
exit status 1; a script that saves no figure fails too. The script's own
exit status is passed on otherwise.

With Debian's /usr/bin/python3 and python3-matplotlib (Agg: no display).
"""
import os
import runpy
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402
import matplotlib.text  # noqa: E402

SLACK_PX = 1.0  # antialiasing may reach half a pixel past a box
saved = []
problems = []
drawn = []  # (text, box, width, height) of each text drawn by the savefig in progress
original_savefig = matplotlib.figure.Figure.savefig
original_draw = matplotlib.text.Text.draw


def recording_draw(text, renderer, *args, **kwargs):
    """Text.draw, then the text's box as drawn (tick labels past the axis'
    limits exist but are never drawn: only what is drawn is checked)."""
    result = original_draw(text, renderer, *args, **kwargs)
    if text.get_visible() and text.get_text().strip():
        width = getattr(renderer, "width", None) or text.figure.bbox.width
        height = getattr(renderer, "height", None) or text.figure.bbox.height
        drawn.append((text.get_text(), text.get_window_extent(renderer), width, height))
    return result


def checked_savefig(fig, fname, *args, **kwargs):
    """Figure.savefig, checking the boxes of the texts it draws against the
    picture's size (bbox_inches="tight" would hide a cut text: the script's
    own figure size is what is checked)."""
    drawn.clear()
    result = original_savefig(fig, fname, *args, **kwargs)
    for text, box, width, height in drawn:
        if (box.x0 < -SLACK_PX or box.x1 > width + SLACK_PX or box.y0 < -SLACK_PX
                or box.y1 > height + SLACK_PX):
            problems.append(f"{os.path.basename(str(fname))}: text {text!r} at x {box.x0:.0f}..{box.x1:.0f}, "
                            f"y {box.y0:.0f}..{box.y1:.0f} px is not inside the figure "
                            f"(0..{width:.0f} x 0..{height:.0f} px)")
    if not drawn:
        problems.append(f"{os.path.basename(str(fname))}: no text drawn (the check saw nothing)")
    saved.append(str(fname))
    return result


def main():
    if len(sys.argv) < 2:
        print("usage: plot_text_inside.py SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    script = sys.argv[1]
    matplotlib.figure.Figure.savefig = checked_savefig
    matplotlib.text.Text.draw = recording_draw
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    name = os.path.basename(script)
    for p in problems:
        print(f"FAIL: {name}: {p}", file=sys.stderr)
    if problems:
        return 1
    if status == 0 and not saved:
        print(f"FAIL: {name}: saved no figure", file=sys.stderr)
        return 1
    if status == 0:
        print(f"{name}: every text inside the figure in {', '.join(os.path.basename(s) for s in saved)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
