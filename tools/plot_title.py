"""tools/plot_title.py: the title of a figure the plot scripts save
(plot_ensemble.py, plot_decompose.py), wrapped to fit inside it."""
import textwrap


def fit_title(fig, ax, text, fontsize=None):
    """Sets ax's title, wrapped at spaces into as many lines as keep it inside
    the figure (a plan's long keys, a long --title), and lays the figure out
    around it (tight_layout leaves a title wider than the figure cut)."""
    width = len(text)
    for _ in range(12):
        title = ax.set_title(textwrap.fill(text, width) if width < len(text) else text, fontsize=fontsize)
        fig.tight_layout()
        fig.canvas.draw()
        box, frame = title.get_window_extent(), fig.bbox
        if box.x0 >= frame.x0 and box.x1 <= frame.x1 or width <= 20:
            return
        # Narrower by the share that sticks out (and a little more: words wrap unevenly).
        width = max(20, min(width - 1, int(width * frame.width / box.width * 0.95)))
