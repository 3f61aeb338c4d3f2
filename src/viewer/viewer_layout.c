// src/viewer/viewer_layout.c: the viewer's panels and the help overlay laid
// out without GL (see viewer_layout.h).
#include "viewer_layout.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_COLUMNS 6
#define MAX_PAGES VIEWER_HELP_MAX

// See viewer_layout.h: the HUD's band across the top, the graph's across
// the foot, the menu's column at the right between them; the world gets
// what is left.
void viewer_layout_panels(const viewer_panels_desc *d, viewer_panels *out) {
    memset(out, 0, sizeof *out);
    float fw = (float)(d->fb_w > 0 ? d->fb_w : 1), fh = (float)(d->fb_h > 0 ? d->fb_h : 1);
    float top = 0.0f, right = fw, bottom = fh;
    if (d->hud_w > 0.0f && d->hud_h > 0.0f) {
        out->hud = (viewer_rect){0.0f, 0.0f, fminf(d->hud_w, fw), fminf(d->hud_h, fh)};
        top = out->hud.h + d->gap;
    }
    if (d->graph_w > 0.0f && d->graph_h > 0.0f) {
        float gh = fminf(d->graph_h, fh);
        out->graph = (viewer_rect){0.0f, fh - gh, fminf(d->graph_w, fw), gh};
        bottom = out->graph.y - d->gap;
    }
    if (d->menu_w > 0.0f && d->menu_h > 0.0f) {
        float mw = fminf(d->menu_w, fw);
        out->menu = (viewer_rect){fw - mw - d->gap, top, mw, fminf(d->menu_h, fmaxf(bottom - top, 0.0f))};
        if (out->menu.x < 0.0f)
            out->menu.x = 0.0f;
        right = out->menu.x - d->gap;
    }
    top = fminf(top, fh - 1.0f);
    right = fmaxf(right, 1.0f);
    bottom = fminf(fmaxf(bottom, top + 1.0f), fh);
    out->free = (viewer_rect){0.0f, top, right, bottom - top};
}

// The graph at scale s (see viewer_layout_graph): padding round the panel,
// the title's line, then the bars (48 pixels at scale 1, or as tall as the
// legend) and the legend a gap to their right, in columns of GRAPH_ROWS
// lines, or of more where d->max_w leaves fewer than GRAPH_MIN_FRAMES bars
// beside them. Returns whether the title and that many bars fit d->max_w.
#define GRAPH_ROWS 4
#define GRAPH_MIN_FRAMES 60
static bool graph_at(const viewer_graph_desc *d, float s, const viewer_rect *at, viewer_graph_layout *out) {
    memset(out, 0, sizeof *out);
    size_t n = d->n < VIEWER_GRAPH_MAX ? d->n : VIEWER_GRAPH_MAX;
    float w, h, h2, title_w, label_w = 0.0f;
    d->measure("Xg", s, &w, &h);
    d->measure("Xg\nXg", s, &w, &h2);
    float line_h = h2 - h, pad = 6.0f * s, gap = 8.0f * s, swatch = 8.0f * s, glyph_h = 7.0f * s;
    d->measure(d->title, s, &title_w, &h);
    for (size_t k = 0; k < n; k++) {
        d->measure(d->labels[k], s, &w, &h);
        label_w = fmaxf(label_w, w);
    }
    float col_w = swatch + 4.0f * s + label_w, legend_w = 0.0f, max_w = d->max_w > 0.0f ? d->max_w : INFINITY;
    size_t rows = n < GRAPH_ROWS ? n : GRAPH_ROWS, cols = 0;
    for (;; rows++) {
        cols = rows ? (n + rows - 1) / rows : 0;
        legend_w = (float)cols * col_w + (float)(cols ? cols - 1 : 0) * gap;
        if (rows >= n || max_w - 2.0f * pad - gap - legend_w >= GRAPH_MIN_FRAMES * s)
            break;
    }
    bool fits = title_w + 2.0f * pad <= max_w && max_w - 2.0f * pad - gap - legend_w >= GRAPH_MIN_FRAMES * s;
    float bars_h = fmaxf(48.0f * s, line_h * (float)rows - (line_h - glyph_h));
    float head = line_h + 4.0f * s; // the title's line and a space under it
    out->scale = s;
    out->line_h = line_h;
    out->w = 2.0f * pad + fmaxf(title_w, (float)d->frames * s + gap + legend_w);
    out->h = 2.0f * pad + head + bars_h;
    if (!at)
        return fits;
    out->panel = *at;
    out->title_x = at->x + pad;
    out->title_y = at->y + pad;
    // The bars the width leaves beside the legend (the newest frames), as
    // tall as the height leaves.
    float room = at->w - 2.0f * pad - gap - legend_w;
    int frames = room > 0.0f ? (int)floorf(room / s) : 0;
    out->frames = frames < d->frames ? frames : d->frames;
    out->bar_w = s;
    bars_h = fminf(bars_h, fmaxf(at->h - 2.0f * pad - head, 0.0f));
    out->bars = (viewer_rect){at->x + pad, at->y + pad + head, (float)out->frames * s, bars_h};
    for (size_t k = 0; k < n; k++) {
        float x = out->bars.x + out->bars.w + gap + (float)(k / rows) * (col_w + gap);
        float y = out->bars.y + line_h * (float)(k % rows);
        out->swatch[k] = (viewer_rect){x, y, swatch, glyph_h};
        out->label_x[k] = x + swatch + 4.0f * s;
        out->label_y[k] = y;
    }
    return fits;
}

// See viewer_layout.h: d->scale, else smaller ones down to 1 where it does
// not fit d->max_w.
void viewer_layout_graph(const viewer_graph_desc *d, const viewer_rect *at, viewer_graph_layout *out) {
    float s = d->scale > 1.0f ? d->scale : 1.0f;
    while (!graph_at(d, s, at, out) && s > 1.0f)
        s = fmaxf(s - 0.5f, 1.0f);
}

// See viewer_layout.h.
void viewer_layout_ndc(const viewer_rect *r, int fb_w, int fb_h, float ndc[4]) {
    float fw = (float)(fb_w > 0 ? fb_w : 1), fh = (float)(fb_h > 0 ? fb_h : 1);
    ndc[0] = r->x / fw * 2.0f - 1.0f;
    ndc[2] = (r->x + r->w) / fw * 2.0f - 1.0f;
    ndc[1] = 1.0f - (r->y + r->h) / fh * 2.0f;
    ndc[3] = 1.0f - r->y / fh * 2.0f;
}

// See viewer_layout.h.
int viewer_layout_wrap(const char *text, float max_w, float scale, viewer_measure_fn measure, char *out, size_t size) {
    if (size == 0)
        return 0;
    snprintf(out, size, "%s", text);
    int lines = 1;
    char *line = out; // the start of the line being filled
    char *last_space = NULL;
    for (char *p = out; *p; p++) {
        if (*p == '\n') {
            // The line's last word, as at a space.
            *p = '\0';
            float w, h;
            measure(line, scale, &w, &h);
            *p = '\n';
            if (w > max_w && last_space) {
                *last_space = '\n';
                lines++;
            }
            line = p + 1;
            last_space = NULL;
            lines++;
            continue;
        }
        if (*p != ' ')
            continue;
        // Does the line up to this space fit? If not, break at the previous one.
        char keep = *p;
        *p = '\0';
        float w, h;
        measure(line, scale, &w, &h);
        *p = keep;
        if (w > max_w && last_space) {
            *last_space = '\n';
            line = last_space + 1;
            lines++;
        }
        last_space = p;
    }
    // The last word.
    float w, h;
    measure(line, scale, &w, &h);
    if (w > max_w && last_space) {
        *last_space = '\n';
        lines++;
    }
    return lines;
}

// One try: the entries at `scale` in `columns` columns, all on one page
// (page_lines 0) or in pages of page_lines lines; fills out's rows, pages,
// panel (of out->page) and returns whether every page fits the area.
static bool place(const viewer_help_desc *d, float scale, int columns, int page_lines, viewer_help_layout *out) {
    viewer_measure_fn m = d->measure;
    float w, h, h2, label_w = 0.0f, more_w = 0.0f, more_h = 0.0f;
    m("Xg", scale, &w, &h);
    m("Xg\nXg", scale, &w, &h2);
    float line_h = h2 - h, gap = 10.0f * scale, col_gap = 20.0f * scale;
    float pad_x = 12.0f * scale, pad_y = 10.0f * scale;
    float avail_w = d->area.w - 2.0f * pad_x, avail_h = d->area.h - 2.0f * pad_y;
    for (size_t i = 0; i < d->n; i++) {
        m(d->labels[i], scale, &w, &h);
        label_w = fmaxf(label_w, w);
    }
    if (d->more)
        m(d->more, scale, &more_w, &more_h);
    float text_limit = (avail_w - (float)(columns - 1) * col_gap) / (float)columns - label_w - gap;
    out->scale = scale;
    out->line_h = line_h;
    out->columns = columns;
    out->n = d->n;
    int lines[VIEWER_HELP_MAX], col_of[VIEWER_HELP_MAX], at[VIEWER_HELP_MAX], total = 0;
    float text_w[VIEWER_HELP_MAX];
    for (size_t i = 0; i < d->n; i++) {
        lines[i] = viewer_layout_wrap(d->texts[i], text_limit, scale, m, out->row[i].text, sizeof out->row[i].text);
        m(out->row[i].text, scale, &text_w[i], &h);
        total += lines[i];
    }
    // Entries down each column in order: balanced columns on one page, or
    // page_lines lines a column and `columns` columns a page.
    int target = page_lines > 0 ? page_lines : (total + columns - 1) / columns, page = 0, col = 0, used = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (used > 0 && used + lines[i] > target) {
            if (col + 1 < columns) {
                col++;
                used = 0;
            } else if (page_lines > 0) {
                page++;
                col = 0;
                used = 0;
            }
        }
        if (page >= MAX_PAGES)
            page = MAX_PAGES - 1;
        out->row[i].page = page;
        col_of[i] = col;
        at[i] = used;
        used += lines[i];
    }
    out->pages = page + 1;
    out->page = ((d->page % out->pages) + out->pages) % out->pages;
    if (out->pages > 1)
        snprintf(out->title, sizeof out->title, "keys: page %d of %d (F2: next page)", out->page + 1, out->pages);
    else
        snprintf(out->title, sizeof out->title, "keys");
    float title_w;
    m(out->title, scale, &title_w, &h);
    // Per page: each column as wide as its widest entry; the page centred.
    bool fits = true;
    for (int p = 0; p < out->pages; p++) {
        float col_w[MAX_COLUMNS] = {0}, col_x[MAX_COLUMNS];
        int tallest = 0, used_cols = 0;
        for (size_t i = 0; i < d->n; i++) {
            if (out->row[i].page != p)
                continue;
            col_w[col_of[i]] = fmaxf(col_w[col_of[i]], label_w + gap + text_w[i]);
            tallest = at[i] + lines[i] > tallest ? at[i] + lines[i] : tallest;
            used_cols = col_of[i] + 1 > used_cols ? col_of[i] + 1 : used_cols;
        }
        float width = 0.0f;
        for (int c = 0; c < used_cols; c++) {
            col_x[c] = width;
            width += col_w[c] + (c + 1 < used_cols ? col_gap : 0.0f);
        }
        width = fmaxf(width, fmaxf(title_w, more_w));
        float height = line_h * (float)(tallest + 2) + more_h;
        if (width > avail_w || height > avail_h)
            fits = false;
        float x0 = d->area.x + fmaxf(0.5f * (d->area.w - width), pad_x);
        float y0 = d->area.y + fmaxf(0.5f * (d->area.h - height), pad_y);
        for (size_t i = 0; i < d->n; i++) {
            if (out->row[i].page != p)
                continue;
            viewer_help_row *r = &out->row[i];
            r->x = x0 + col_x[col_of[i]];
            r->y = y0 + line_h * (float)(1 + at[i]);
            r->text_x = r->x + label_w + gap;
            r->w = label_w + gap + text_w[i];
            r->h = line_h * (float)lines[i];
        }
        if (p == out->page) {
            out->panel = (viewer_rect){x0 - pad_x, y0 - pad_y, width + 2.0f * pad_x, height + 2.0f * pad_y};
            out->title_x = out->more_x = x0;
            out->title_y = y0;
            out->more_y = y0 + line_h * (float)(tallest + 2);
        }
    }
    return fits;
}

// The narrowest text a column may wrap to at `scale`: the width of a short
// entry, so that columns never squeeze texts into one word a line.
static float narrowest(const viewer_help_desc *d, float scale) {
    float w, h;
    d->measure("toggle separation", scale, &w, &h);
    return w;
}

// The widest label at `scale`.
static float widest_label(const viewer_help_desc *d, float scale) {
    float widest = 0.0f, w, h;
    for (size_t i = 0; i < d->n; i++) {
        d->measure(d->labels[i], scale, &w, &h);
        widest = fmaxf(widest, w);
    }
    return widest;
}

// The most columns whose texts keep the narrowest width at `scale`.
static int most_columns(const viewer_help_desc *d, float scale) {
    float avail_w = d->area.w - 24.0f * scale, per = widest_label(d, scale) + 10.0f * scale + narrowest(d, scale);
    int c = 1;
    while (c < MAX_COLUMNS && (float)(c + 1) * per + (float)c * 20.0f * scale <= avail_w)
        c++;
    return c;
}

// See viewer_layout.h.
void viewer_layout_help(const viewer_help_desc *d, viewer_help_layout *out) {
    memset(out, 0, sizeof *out);
    viewer_help_desc dd = *d;
    if (dd.n > VIEWER_HELP_MAX)
        dd.n = VIEWER_HELP_MAX;
    float s0 = dd.scale > 1.0f ? dd.scale : 1.0f;
    for (float s = s0; s >= 1.0f; s -= 0.5f) {
        int most = most_columns(&dd, s);
        for (int c = 1; c <= most; c++)
            if (place(&dd, s, c, 0, out))
                return;
    }
    // Pages at scale 1: as many columns as the width takes, as many lines a
    // column as the height takes under the title and the lines below.
    float w, h, h2, more_w = 0.0f, more_h = 0.0f;
    dd.measure("Xg", 1.0f, &w, &h);
    dd.measure("Xg\nXg", 1.0f, &w, &h2);
    if (dd.more)
        dd.measure(dd.more, 1.0f, &more_w, &more_h);
    float line_h = h2 - h, avail_h = dd.area.h - 20.0f;
    int page_lines = (int)floorf((avail_h - more_h) / line_h) - 2;
    place(&dd, 1.0f, most_columns(&dd, 1.0f), page_lines > 1 ? page_lines : 1, out);
}
