/* VProf captures as Chrome traces, speedscope files and per-frame CSV
 * (vprof_export.h): one pass over the frames, text written as it goes. */
#include "vprof_export.h"

#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "xout.h"

#ifndef VP_VERSION
#define VP_VERSION "0.1.0"
#endif

static const char LAYOUT_NOTE[] =
    "VProf records no timestamps inside a frame: each frame starts at the sum of the earlier "
    "frame times, and each node's children start one after another from their parent's start "
    "in recorded order (cut at the parent's end)";

/* ---- shared: groups, node texts, the layout ------------------------------------- */

static int cmp_group_id(uint32_t a, uint32_t b, const void *ctx)
{
    const vp_vprof *m = ctx;
    int32_t x = m->groups[a].id, y = m->groups[b].id;
    return (x > y) - (x < y);
}

/* The groups with nodes, in id order (malloc'd; *n how many). */
static uint32_t *listed_groups(const vp_vprof *m, uint32_t *n)
{
    uint32_t *g = malloc(((size_t)m->group_count + 1) * sizeof *g);
    if (!g)
        return NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->group_count; i++)
        if (m->groups[i].has_nodes)
            g[k++] = i;
    vp_sort_idx(g, k, cmp_group_id, m);
    *n = k;
    return g;
}

static const char *group_name(const vp_vprof *m, uint32_t node)
{
    uint32_t g = m->nodes[node].group;
    return g == VP_VPROF_NO_NODE ? "" : vp_vprof_name(m, m->groups[g].name);
}

/* A node's label as JSON: its name, and "#k" for the k-th same-named
 * sibling (as in its path), so the tools keep namesakes apart. */
static void put_label(vp_xstr *s, const vp_vprof *m, uint32_t v)
{
    const char *name = vp_vprof_name(m, m->nodes[v].name);
    if (!m->nodes[v].dup) {
        vp_xstr_json(s, name, strlen(name));
        return;
    }
    vp_xstr t = {0};
    char suffix[16];
    vp_xstr_str(&t, name);
    snprintf(suffix, sizeof suffix, "#%u", (unsigned)m->nodes[v].dup);
    vp_xstr_str(&t, suffix);
    if (t.oom)
        s->oom = 1;
    else
        vp_xstr_json(s, t.p, t.len);
    vp_xstr_free(&t);
}

/* A node's path (the listing form: at most a few hundred bytes) into s. */
static void put_path(vp_xstr *s, const vp_vprof *m, uint32_t v, int json)
{
    char small[320];
    size_t need = vp_vprof_node_path(m, v, small, sizeof small);
    char *p = small;
    if (need >= sizeof small) {
        p = malloc(need + 1);
        if (!p) {
            s->oom = 1;
            return;
        }
        vp_vprof_node_path(m, v, p, need + 1);
    }
    if (json)
        vp_xstr_json(s, p, need);
    else
        vp_xstr_csv(s, p, need);
    if (p != small)
        free(p);
}

/* Per-frame layout (see vprof_export.h), by position in the frame's epoch:
 * start and end in us; a node is drawn when end > start (the root: when it
 * has time of its own). */
typedef struct layout {
    uint64_t *start, *end, *cur;
    uint32_t *depth;
    uint32_t cap;
} layout;

/* *p resized to c elements; 0 when out of memory (*p is then as it was). */
static int fit_u64(uint64_t **p, uint32_t c)
{
    uint64_t *a = realloc(*p, (size_t)c * sizeof *a);
    if (!a)
        return 0;
    *p = a;
    return 1;
}

static int layout_fit(layout *l, uint32_t n)
{
    if (n <= l->cap)
        return 1;
    uint32_t c = l->cap ? l->cap : 64;
    while (c < n)
        c *= 2;
    if (!fit_u64(&l->start, c) || !fit_u64(&l->end, c) || !fit_u64(&l->cur, c))
        return 0;
    uint32_t *d = realloc(l->depth, (size_t)c * sizeof *d);
    if (!d)
        return 0;
    l->depth = d;
    l->cap = c;
    return 1;
}

static void layout_free(layout *l)
{
    free(l->start);
    free(l->end);
    free(l->cur);
    free(l->depth);
}

static void layout_frame(layout *l, const vp_vprof_epoch *ep, const uint64_t *units, uint64_t t0,
                         uint64_t frame_us)
{
    l->start[0] = l->cur[0] = t0;
    l->end[0] = t0 + frame_us;
    l->depth[0] = 0;
    for (uint32_t pos = 1; pos < ep->n; pos++) {
        uint32_t p = ep->parent_pos[pos];
        uint64_t s = l->cur[p], pe = l->end[p];
        uint64_t e = s + units[pos] * VP_VPROF_US_PER_UNIT;
        if (e > pe)
            e = pe;
        l->start[pos] = l->cur[pos] = s;
        l->end[pos] = e;
        l->cur[p] = e;
        l->depth[pos] = l->depth[p] + 1;
    }
}

static int drawn(const layout *l, const uint64_t *units, uint32_t pos)
{
    return pos == 0 ? units[0] > 0 : l->end[pos] > l->start[pos];
}

static uint64_t frame_us(const vp_vprof *m, uint32_t fi)
{
    return m->frames[fi].units * VP_VPROF_US_PER_UNIT;
}

static vp_errcode oom(vp_error *err)
{
    return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
}

/* ---- Chrome Trace Event JSON -------------------------------------------------------- */

typedef struct chrome {
    vp_xout out;
    const vp_vprof *m;
    layout l;
    vp_xstr text;         /* the node fragments */
    size_t *pre, *post;   /* node -> offset in text; lengths follow */
    size_t *pre_n, *post_n;
    uint32_t *groups, ngroups;
    vp_xstr gnames;       /* ,"name": fragments of the groups, in order */
    size_t *gname_off;
    uint64_t *gsum;       /* by group index: self units this frame */
    uint64_t t;           /* the frame's start, us */
} chrome;

static int chrome_frame(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                        const uint64_t *self, const uint32_t *calls)
{
    chrome *c = ud;
    const vp_vprof *m = c->m;
    vp_xout *o = &c->out;
    uint64_t fus = frame_us(m, fi), t = c->t;
    uint64_t no = (uint64_t)m->frame_base + fi + 1;
    vp_xout_str(o, ",\n{\"name\":\"frame ");
    vp_xout_u64(o, no);
    vp_xout_str(o, "\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"ts\":");
    vp_xout_u64(o, t);
    vp_xout_str(o, ",\"args\":{\"frame\":");
    vp_xout_u64(o, no);
    vp_xout_str(o, ",\"tick\":");
    vp_xout_i64(o, m->frames[fi].tick);
    vp_xout_str(o, ",\"frame_ms\":");
    vp_xout_ms(o, fus);
    vp_xout_str(o, "}},\n{\"name\":\"frame_ms\",\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":");
    vp_xout_u64(o, t);
    vp_xout_str(o, ",\"args\":{\"frame_ms\":");
    vp_xout_ms(o, fus);
    vp_xout_str(o, "}}");

    for (uint32_t k = 0; k < c->ngroups; k++)
        c->gsum[c->groups[k]] = 0;
    for (uint32_t pos = 0; pos < ep->n; pos++)
        if (ep->group[pos] != VP_VPROF_NO_NODE)
            c->gsum[ep->group[pos]] += self[pos];
    if (c->ngroups) {
        vp_xout_str(o, ",\n{\"name\":\"group self ms\",\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":");
        vp_xout_u64(o, t);
        vp_xout_str(o, ",\"args\":{");
        for (uint32_t k = 0; k < c->ngroups; k++) {
            size_t a = c->gname_off[k], b = c->gname_off[k + 1];
            vp_xout_put(o, c->gnames.p + a + (k == 0), b - a - (k == 0));
            vp_xout_ms(o, c->gsum[c->groups[k]] * VP_VPROF_US_PER_UNIT);
        }
        vp_xout_str(o, "}}");
    }

    layout_frame(&c->l, ep, units, t, fus);
    for (uint32_t pos = 0; pos < ep->n; pos++) {
        if (!drawn(&c->l, units, pos))
            continue;
        uint32_t v = ep->order[pos];
        vp_xout_put(o, ",\n", 2);
        vp_xout_put(o, c->text.p + c->pre[v], c->pre_n[v]);
        vp_xout_u64(o, c->l.start[pos]);
        vp_xout_str(o, ",\"dur\":");
        vp_xout_u64(o, c->l.end[pos] - c->l.start[pos]);
        vp_xout_put(o, c->text.p + c->post[v], c->post_n[v]);
        vp_xout_u64(o, calls[pos]);
        vp_xout_str(o, ",\"self_ms\":");
        vp_xout_ms(o, self[pos] * VP_VPROF_US_PER_UNIT);
        vp_xout_put(o, "}}", 2);
    }
    c->t = t + fus;
    return o->failed;
}

static void chrome_free(chrome *c)
{
    layout_free(&c->l);
    vp_xstr_free(&c->text);
    vp_xstr_free(&c->gnames);
    free(c->pre);
    free(c->post);
    free(c->pre_n);
    free(c->post_n);
    free(c->groups);
    free(c->gname_off);
    free(c->gsum);
}

/* Hand the document's head to the output, and release it. */
static void put_head(vp_xout *o, vp_xstr *head)
{
    vp_xout_put(o, head->p, head->len);
    vp_xstr_free(head);
}

/* The pass over every frame of m (VP_OK when it has none). */
static vp_errcode pass_all(vp_vprof *m, vp_vprof_pass_fn fn, void *ud, vp_error *err)
{
    return m->frame_count ? vp_vprof_pass(m, 0, m->frame_count - 1, fn, ud, err) : VP_OK;
}

/* Flush the output and decide the export's status: the pass's error (rc,
 * already in *err) comes first, else the output's. */
static vp_errcode finish_output(vp_xout *o, const vp_export_opts *opt, vp_errcode rc, vp_error *err)
{
    vp_error werr;
    vp_errcode wrc = vp_xout_finish(o, opt && opt->what ? opt->what : "the output", &werr);
    if (rc != VP_OK)
        return rc;
    if (wrc != VP_OK)
        *err = werr;
    return wrc;
}

vp_errcode vp_export_vprof_chrome(vp_vprof *m, FILE *f, const vp_export_opts *opt, vp_error *err)
{
    chrome c;
    memset(&c, 0, sizeof c);
    c.m = m;
    size_t nn = m->node_count;
    c.pre = malloc(nn * sizeof *c.pre);
    c.post = malloc(nn * sizeof *c.post);
    c.pre_n = malloc(nn * sizeof *c.pre_n);
    c.post_n = malloc(nn * sizeof *c.post_n);
    c.groups = listed_groups(m, &c.ngroups);
    c.gname_off = malloc(((size_t)c.ngroups + 1) * sizeof *c.gname_off);
    c.gsum = calloc((size_t)m->group_count + 1, sizeof *c.gsum);
    if (!c.pre || !c.post || !c.pre_n || !c.post_n || !c.groups || !c.gname_off || !c.gsum) {
        chrome_free(&c);
        return oom(err);
    }
    for (uint32_t v = 0; v < nn; v++) {
        const char *g = group_name(m, v);
        c.pre[v] = c.text.len;
        vp_xstr_str(&c.text, "{\"name\":");
        put_label(&c.text, m, v);
        vp_xstr_str(&c.text, ",\"cat\":");
        vp_xstr_json(&c.text, g, strlen(g));
        vp_xstr_str(&c.text, ",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":");
        c.pre_n[v] = c.text.len - c.pre[v];
        c.post[v] = c.text.len;
        vp_xstr_str(&c.text, ",\"args\":{\"path\":");
        put_path(&c.text, m, v, 1);
        vp_xstr_str(&c.text, ",\"group\":");
        vp_xstr_json(&c.text, g, strlen(g));
        vp_xstr_str(&c.text, ",\"calls\":");
        c.post_n[v] = c.text.len - c.post[v];
    }
    for (uint32_t k = 0; k < c.ngroups; k++) {
        const char *g = vp_vprof_name(m, m->groups[c.groups[k]].name);
        c.gname_off[k] = c.gnames.len;
        vp_xstr_put(&c.gnames, ",", 1);
        vp_xstr_json(&c.gnames, g, strlen(g));
        vp_xstr_put(&c.gnames, ":", 1);
    }
    c.gname_off[c.ngroups] = c.gnames.len;
    if (c.text.oom || c.gnames.oom || !layout_fit(&c.l, m->node_count) ||
        !vp_xout_init(&c.out, f)) {
        chrome_free(&c);
        free(c.out.buf);
        return oom(err);
    }
    vp_xstr head = {0};
    const char *name = opt && opt->name ? opt->name : "vprof";
    vp_xstr_str(&head, "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
                       "\"tid\":1,\"args\":{\"name\":");
    vp_xstr_json(&head, name, strlen(name));
    vp_xstr_str(&head, "}},\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
                       "\"args\":{\"name\":\"frames\"}}");
    if (head.oom) {
        vp_xstr_free(&head);
        chrome_free(&c);
        free(c.out.buf);
        return oom(err);
    }
    put_head(&c.out, &head);

    vp_errcode rc = pass_all(m, chrome_frame, &c, err);
    vp_xout_str(&c.out, "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"exporter\":\"vpscript " VP_VERSION
                        "\",\"format\":\"vprof\",\"first_frame\":");
    vp_xout_u64(&c.out, (uint64_t)m->frame_base + 1);
    vp_xout_str(&c.out, ",\"last_frame\":");
    vp_xout_u64(&c.out, (uint64_t)m->frame_base + m->frame_count);
    vp_xout_str(&c.out, ",\"layout\":\"");
    vp_xout_str(&c.out, LAYOUT_NOTE);
    vp_xout_str(&c.out, "\"}}\n");
    rc = finish_output(&c.out, opt, rc, err);
    chrome_free(&c);
    return rc;
}

/* ---- speedscope ----------------------------------------------------------------------- */

typedef struct sscope {
    vp_xout out;
    const vp_vprof *m;
    layout l;
    int per_frame;
    uint32_t *stack; /* positions of the open nodes */
    uint64_t t;
    int first; /* no event written yet (in this profile) */
} sscope;

static void ss_event(sscope *s, char type, uint32_t node, uint64_t at)
{
    vp_xout *o = &s->out;
    vp_xout_str(o, s->first ? "\n{\"type\":\"" : ",\n{\"type\":\"");
    s->first = 0;
    vp_xout_put(o, &type, 1);
    vp_xout_str(o, "\",\"frame\":");
    vp_xout_u64(o, node);
    vp_xout_str(o, ",\"at\":");
    vp_xout_u64(o, at);
    vp_xout_put(o, "}", 1);
}

static void ss_profile_head(sscope *s, uint32_t fi, uint64_t start, uint64_t end, int comma)
{
    vp_xout *o = &s->out;
    const vp_vprof *m = s->m;
    if (comma)
        vp_xout_put(o, ",\n", 2);
    vp_xout_str(o, "{\"type\":\"evented\",\"name\":\"frame ");
    vp_xout_u64(o, (uint64_t)m->frame_base + fi + 1);
    vp_xout_str(o, " (tick ");
    vp_xout_i64(o, m->frames[fi].tick);
    vp_xout_str(o, ", ");
    vp_xout_ms(o, end - start);
    vp_xout_str(o, " ms)\",\"unit\":\"microseconds\",\"startValue\":");
    vp_xout_u64(o, start);
    vp_xout_str(o, ",\"endValue\":");
    vp_xout_u64(o, end);
    vp_xout_str(o, ",\"events\":[");
    s->first = 1;
}

static int ss_frame(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                    const uint64_t *self, const uint32_t *calls)
{
    (void)self;
    (void)calls;
    sscope *s = ud;
    const vp_vprof *m = s->m;
    uint64_t fus = frame_us(m, fi), t = s->t;
    if (s->per_frame)
        ss_profile_head(s, fi, t, t + fus, fi > 0);
    layout *l = &s->l;
    layout_frame(l, ep, units, t, fus);
    uint32_t top = 0;
    for (uint32_t pos = 0; pos < ep->n; pos++) {
        if (!drawn(l, units, pos))
            continue;
        while (top && l->depth[s->stack[top - 1]] >= l->depth[pos]) {
            uint32_t q = s->stack[--top];
            ss_event(s, 'C', ep->order[q], l->end[q]);
        }
        ss_event(s, 'O', ep->order[pos], l->start[pos]);
        s->stack[top++] = pos;
    }
    while (top) {
        uint32_t q = s->stack[--top];
        ss_event(s, 'C', ep->order[q], l->end[q]);
    }
    if (s->per_frame)
        vp_xout_str(&s->out, "\n]}");
    s->t = t + fus;
    return s->out.failed;
}

vp_errcode vp_export_vprof_speedscope(vp_vprof *m, FILE *f, const vp_export_opts *opt,
                                      vp_error *err)
{
    sscope s;
    memset(&s, 0, sizeof s);
    s.m = m;
    s.per_frame = opt && opt->per_frame;
    const char *name = opt && opt->name ? opt->name : "vprof";
    s.stack = malloc(((size_t)m->node_count + 1) * sizeof *s.stack);
    vp_xstr head = {0};
    vp_xstr_str(&head, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                       "\"exporter\":\"vpscript " VP_VERSION "\",\"name\":");
    vp_xstr_json(&head, name, strlen(name));
    vp_xstr_str(&head, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
    for (uint32_t v = 0; v < m->node_count; v++) {
        vp_xstr_str(&head, v ? ",\n{\"name\":" : "\n{\"name\":");
        put_label(&head, m, v);
        vp_xstr_str(&head, ",\"file\":");
        put_path(&head, m, v, 1);
        vp_xstr_put(&head, "}", 1);
    }
    vp_xstr_str(&head, "\n]},\"profiles\":[\n");
    if (!s.stack || head.oom || !layout_fit(&s.l, m->node_count) || !vp_xout_init(&s.out, f)) {
        vp_xstr_free(&head);
        free(s.stack);
        layout_free(&s.l);
        free(s.out.buf);
        return oom(err);
    }
    put_head(&s.out, &head);
    if (!s.per_frame) {
        uint64_t total = 0;
        for (uint32_t fi = 0; fi < m->frame_count; fi++)
            total += frame_us(m, fi);
        vp_xout_str(&s.out, "{\"type\":\"evented\",\"name\":");
        vp_xstr nm = {0};
        vp_xstr_json(&nm, name, strlen(name));
        vp_xout_put(&s.out, nm.p ? nm.p : "\"\"", nm.p ? nm.len : 2);
        vp_xstr_free(&nm);
        vp_xout_str(&s.out, ",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":");
        vp_xout_u64(&s.out, total);
        vp_xout_str(&s.out, ",\"events\":[");
        s.first = 1;
    }
    vp_errcode rc = pass_all(m, ss_frame, &s, err);
    if (!s.per_frame)
        vp_xout_str(&s.out, "\n]}");
    vp_xout_str(&s.out, "\n]}\n");
    rc = finish_output(&s.out, opt, rc, err);
    free(s.stack);
    layout_free(&s.l);
    return rc;
}

/* ---- CSV ------------------------------------------------------------------------------------ */

typedef struct csv {
    vp_xout out;
    const vp_vprof *m;
    uint32_t *groups, ngroups;
    uint64_t *gsum;
    uint32_t node;
    uint32_t node_ep_n, node_pos; /* the node's position in the epoch of that many nodes */
    uint64_t t;
} csv;

static int csv_frame(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                     const uint64_t *self, const uint32_t *calls)
{
    csv *c = ud;
    const vp_vprof *m = c->m;
    vp_xout *o = &c->out;
    uint64_t fus = frame_us(m, fi);
    vp_xout_u64(o, (uint64_t)m->frame_base + fi + 1);
    vp_xout_put(o, ",", 1);
    vp_xout_i64(o, m->frames[fi].tick);
    vp_xout_put(o, ",", 1);
    vp_xout_ms(o, c->t);
    vp_xout_put(o, ",", 1);
    vp_xout_ms(o, fus);
    for (uint32_t k = 0; k < c->ngroups; k++)
        c->gsum[c->groups[k]] = 0;
    for (uint32_t pos = 0; pos < ep->n; pos++)
        if (ep->group[pos] != VP_VPROF_NO_NODE)
            c->gsum[ep->group[pos]] += self[pos];
    for (uint32_t k = 0; k < c->ngroups; k++) {
        vp_xout_put(o, ",", 1);
        vp_xout_ms(o, c->gsum[c->groups[k]] * VP_VPROF_US_PER_UNIT);
    }
    if (c->node != VP_VPROF_NO_NODE) {
        uint64_t t = 0, sv = 0, n = 0;
        if (c->node < ep->n) {
            /* The node's position: found by a scan only when the tree grew
             * (positions are those of the epoch of ep->n nodes). */
            if (c->node_ep_n != ep->n) {
                c->node_ep_n = ep->n;
                for (uint32_t pos = 0; pos < ep->n; pos++)
                    if (ep->order[pos] == c->node)
                        c->node_pos = pos;
            }
            t = units[c->node_pos];
            sv = self[c->node_pos];
            n = calls[c->node_pos];
        }
        vp_xout_put(o, ",", 1);
        vp_xout_ms(o, t * VP_VPROF_US_PER_UNIT);
        vp_xout_put(o, ",", 1);
        vp_xout_ms(o, sv * VP_VPROF_US_PER_UNIT);
        vp_xout_put(o, ",", 1);
        vp_xout_u64(o, n);
    }
    vp_xout_put(o, "\r\n", 2);
    c->t += fus;
    return o->failed;
}

vp_errcode vp_export_vprof_csv(vp_vprof *m, FILE *f, const vp_export_opts *opt, vp_error *err)
{
    csv c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.node = opt ? opt->node : VP_VPROF_NO_NODE;
    if (c.node != VP_VPROF_NO_NODE && c.node >= m->node_count)
        return vp_fail(err, VP_ELIMIT, UINT64_MAX, "no node %u", (unsigned)c.node);
    c.groups = listed_groups(m, &c.ngroups);
    c.gsum = calloc((size_t)m->group_count + 1, sizeof *c.gsum);
    vp_xstr head = {0};
    vp_xstr_str(&head, "frame,tick,start_ms,frame_ms");
    for (uint32_t k = 0; c.groups && k < c.ngroups; k++) {
        const char *g = vp_vprof_name(m, m->groups[c.groups[k]].name);
        vp_xstr_put(&head, ",", 1);
        vp_xstr_csv(&head, g, strlen(g));
    }
    if (c.node != VP_VPROF_NO_NODE)
        vp_xstr_str(&head, ",node_ms,node_self_ms,node_calls");
    vp_xstr_str(&head, "\r\n");
    if (!c.groups || !c.gsum || head.oom || !vp_xout_init(&c.out, f)) {
        vp_xstr_free(&head);
        free(c.groups);
        free(c.gsum);
        free(c.out.buf);
        return oom(err);
    }
    put_head(&c.out, &head);
    vp_errcode rc = pass_all(m, csv_frame, &c, err);
    rc = finish_output(&c.out, opt, rc, err);
    free(c.groups);
    free(c.gsum);
    return rc;
}

/* ---- columns for charts ----------------------------------------------------------------------- */

typedef struct gcols {
    const vp_vprof *m;
    vp_export_columns *c;
    uint32_t *slot;    /* by group index: its place among those given, UINT32_MAX for the others */
    uint64_t *frame;   /* by group index: this frame's self time (units) */
    uint32_t *touched; /* the groups with self time in this frame */
    uint32_t ntouched;
    uint64_t *sum;     /* by place: this column's so far (units); sum[ngroups]: the others' */
    uint64_t *lo, *hi; /* by place: this column's smallest and largest frame */
    uint32_t col;
} gcols;

/* Column col is complete. */
static void gcols_flush(gcols *g)
{
    const vp_export_columns *c = g->c;
    size_t row = (size_t)g->col * c->ngroups;
    for (uint32_t k = 0; k < c->ngroups; k++) {
        c->sum[row + k] = vp_vprof_ms(g->sum[k]);
        if (c->min) {
            c->min[row + k] = vp_vprof_ms(g->lo[k]);
            c->max[row + k] = vp_vprof_ms(g->hi[k]);
        }
        g->sum[k] = 0;
        g->lo[k] = UINT64_MAX;
        g->hi[k] = 0;
    }
    if (c->other)
        c->other[g->col] = vp_vprof_ms(g->sum[c->ngroups]);
    g->sum[c->ngroups] = 0;
}

static int gcols_frame(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                       const uint64_t *self, const uint32_t *calls)
{
    (void)units;
    (void)calls;
    gcols *g = ud;
    const vp_vprof *m = g->m;
    vp_export_columns *c = g->c;
    /* frame fi is in column ceil((fi + 1) * cols / frames) - 1 (0-based):
     * the split of vp.charts (charts.span) */
    uint32_t col = (uint32_t)(((uint64_t)fi * c->cols + c->cols + m->frame_count - 1) / m->frame_count - 1);
    if (col != g->col) {
        gcols_flush(g);
        g->col = col;
    }
    c->frames[col]++;
    g->ntouched = 0;
    for (uint32_t pos = 0; pos < ep->n; pos++) {
        uint32_t gi = ep->group[pos];
        if (gi == VP_VPROF_NO_NODE || !self[pos])
            continue;
        if (!g->frame[gi])
            g->touched[g->ntouched++] = gi;
        g->frame[gi] += self[pos];
    }
    /* the groups given with no time in this frame: their smallest is 0 */
    uint32_t top = VP_VPROF_NO_NODE;
    for (uint32_t t = 0; t < g->ntouched; t++) {
        uint32_t gi = g->touched[t];
        uint64_t v = g->frame[gi];
        uint32_t k = g->slot[gi];
        if (k == UINT32_MAX) {
            g->sum[c->ngroups] += v;
        } else {
            g->sum[k] += v;
            if (v > g->hi[k])
                g->hi[k] = v;
        }
        /* the first of the largest: ties go to the lower index */
        if (top == VP_VPROF_NO_NODE || v > g->frame[top] || (v == g->frame[top] && gi < top))
            top = gi;
    }
    if (c->min) {
        for (uint32_t k = 0; k < c->ngroups; k++) {
            uint64_t v = g->frame[c->groups[k]];
            if (v < g->lo[k])
                g->lo[k] = v;
        }
    }
    for (uint32_t t = 0; t < g->ntouched; t++)
        g->frame[g->touched[t]] = 0;
    if (c->top)
        c->top[fi] = top;
    if (c->tick)
        c->tick[fi] = m->frames[fi].tick;
    return 0;
}

vp_errcode vp_export_vprof_columns(vp_vprof *m, vp_export_columns *c, vp_error *err)
{
    size_t cells = (size_t)c->cols * c->ngroups;
    memset(c->sum, 0, cells * sizeof *c->sum);
    if (c->min) {
        memset(c->min, 0, cells * sizeof *c->min);
        memset(c->max, 0, cells * sizeof *c->max);
    }
    if (c->other)
        memset(c->other, 0, (size_t)c->cols * sizeof *c->other);
    memset(c->frames, 0, (size_t)c->cols * sizeof *c->frames);
    if (!m->frame_count || !c->cols)
        return VP_OK;
    size_t n = (size_t)m->group_count + 1, k = (size_t)c->ngroups + 1;
    gcols g = {m, c, malloc(n * sizeof(uint32_t)), calloc(n, sizeof(uint64_t)), malloc(n * sizeof(uint32_t)), 0,
               calloc(k, sizeof(uint64_t)), malloc(k * sizeof(uint64_t)), calloc(k, sizeof(uint64_t)), 0};
    vp_errcode rc = VP_OK;
    if (!g.slot || !g.frame || !g.touched || !g.sum || !g.lo || !g.hi) {
        rc = oom(err);
    } else {
        for (size_t i = 0; i < n; i++)
            g.slot[i] = UINT32_MAX;
        for (uint32_t i = 0; i < c->ngroups; i++)
            g.slot[c->groups[i]] = i;
        for (size_t i = 0; i < k; i++)
            g.lo[i] = UINT64_MAX;
        rc = vp_vprof_pass(m, 0, m->frame_count - 1, gcols_frame, &g, err);
        if (rc == VP_OK)
            gcols_flush(&g);
    }
    free(g.slot);
    free(g.frame);
    free(g.touched);
    free(g.sum);
    free(g.lo);
    free(g.hi);
    return rc;
}

/* ---- folded stacks ------------------------------------------------------------------------ */

/* Stacks are merged by their text (two nodes whose labels read the same
 * under the same stack add up), so the nodes of both captures are laid
 * into one trie of labels: a trie node per distinct stack. */
typedef struct ftrie {
    uint32_t parent, side, node; /* a node (of capture `side`) with this label */
    uint32_t first_child, next_sibling, nkids;
    uint64_t us[2]; /* self microseconds: the capture, the baseline */
} ftrie;

typedef struct folded {
    vp_vprof *m[2];
    ftrie *t;
    uint32_t n, cap;
    uint32_t *slot; /* open addressing: trie ids by (parent, label), UINT32_MAX empty */
    size_t nslots;
} folded;

/* A folded label's byte: ';' (the separator) becomes ',', a line break a space. */
static unsigned char fold_byte(unsigned char c)
{
    return c == ';' ? ',' : (c == '\r' || c == '\n') ? ' ' : c;
}

/* The label of trie node id: its node's name and "#k" suffix (as in its path). */
typedef struct flabel {
    const char *p[2];
    size_t n[2];
    char suffix[16];
} flabel;

static void flabel_of(const folded *F, uint32_t id, flabel *l)
{
    const ftrie *t = &F->t[id];
    const vp_vprof *m = F->m[t->side];
    l->p[0] = vp_vprof_name(m, m->nodes[t->node].name);
    l->n[0] = strlen(l->p[0]);
    l->n[1] = 0;
    l->p[1] = l->suffix;
    if (m->nodes[t->node].dup) {
        int k = snprintf(l->suffix, sizeof l->suffix, "#%u", m->nodes[t->node].dup);
        l->n[1] = k > 0 ? (size_t)k : 0;
    }
}

static uint64_t flabel_hash(const flabel *l, uint32_t parent)
{
    uint64_t h = 1469598103934665603u ^ parent;
    for (int part = 0; part < 2; part++)
        for (size_t i = 0; i < l->n[part]; i++)
            h = (h ^ fold_byte((unsigned char)l->p[part][i])) * 1099511628211u;
    return h ^ (h >> 29);
}

/* Compare two labels as folded bytes, each with ";" after it when `block`
 * (the stacks below it: see vp_vprof_path_order for why both keys). */
static int flabel_cmp(const flabel *a, int ablock, const flabel *b, int bblock)
{
    const char *pa[3] = {a->p[0], a->p[1], ";"}, *pb[3] = {b->p[0], b->p[1], ";"};
    size_t na[3] = {a->n[0], a->n[1], (size_t)ablock}, nb[3] = {b->n[0], b->n[1], (size_t)bblock};
    int ia = 0, ib = 0;
    size_t ja = 0, jb = 0;
    for (;;) {
        while (ia < 3 && ja == na[ia])
            ia++, ja = 0;
        while (ib < 3 && jb == nb[ib])
            ib++, jb = 0;
        if (ia == 3 && ib == 3)
            return 0;
        if (ia == 3 || ib == 3)
            return ia == 3 ? -1 : 1; /* a prefix sorts first */
        unsigned char x = ia == 2 ? ';' : fold_byte((unsigned char)pa[ia][ja]);
        unsigned char y = ib == 2 ? ';' : fold_byte((unsigned char)pb[ib][jb]);
        ja++, jb++;
        if (x != y)
            return x < y ? -1 : 1;
    }
}

static int fold_grow(folded *F)
{
    if (F->n < F->cap)
        return 1;
    uint32_t cap = F->cap ? F->cap * 2 : 1024;
    ftrie *t = realloc(F->t, (size_t)cap * sizeof *t);
    if (!t)
        return 0;
    F->t = t;
    F->cap = cap;
    return 1;
}

/* The trie node for node v of capture `side` under trie node parent (made
 * when new); UINT32_MAX on OOM. */
static uint32_t fold_place(folded *F, uint32_t parent, uint32_t side, uint32_t v)
{
    if (!fold_grow(F))
        return UINT32_MAX;
    uint32_t id = F->n;
    F->t[id] = (ftrie){parent, side, v, UINT32_MAX, UINT32_MAX, 0, {0, 0}};
    flabel l, o;
    flabel_of(F, id, &l);
    size_t mask = F->nslots - 1, i = (size_t)flabel_hash(&l, parent) & mask;
    for (; F->slot[i] != UINT32_MAX; i = (i + 1) & mask) {
        uint32_t c = F->slot[i];
        if (F->t[c].parent != parent)
            continue;
        flabel_of(F, c, &o);
        if (flabel_cmp(&l, 0, &o, 0) == 0)
            return c;
    }
    F->slot[i] = id;
    F->n++;
    ftrie *p = &F->t[parent];
    F->t[id].next_sibling = p->first_child;
    p->first_child = id;
    p->nkids++;
    return id;
}

/* Lay capture `side`'s nodes into the trie with their self time over the
 * frames the capture holds. */
static vp_errcode fold_side(folded *F, uint32_t side, vp_error *err)
{
    vp_vprof *m = F->m[side];
    vp_vprof_node_stat *acc = malloc(((size_t)m->node_count + 1) * sizeof *acc);
    uint32_t *at = malloc(((size_t)m->node_count + 1) * sizeof *at);
    vp_errcode rc = acc && at ? VP_OK : oom(err);
    if (rc == VP_OK) {
        uint32_t first = 0, last = m->frame_count ? m->frame_count - 1 : 0;
        if (!m->frame_count)
            first = 1; /* an empty range: zeros */
        rc = vp_vprof_node_stats(m, first, last, acc, err);
    }
    for (uint32_t v = 0; rc == VP_OK && v != VP_VPROF_NO_NODE; v = vp_vprof_preorder_next(m, v)) {
        uint32_t parent = v == 0 ? 0 : at[m->nodes[v].parent];
        uint32_t id = fold_place(F, parent, side, v);
        if (id == UINT32_MAX) {
            rc = oom(err);
            break;
        }
        at[v] = id;
        F->t[id].us[side] += acc[v].self * VP_VPROF_US_PER_UNIT;
    }
    free(acc);
    free(at);
    return rc;
}

static int cmp_fkey(uint32_t a, uint32_t b, const void *ctx)
{
    const folded *F = ctx;
    flabel la, lb;
    flabel_of(F, a >> 1, &la);
    flabel_of(F, b >> 1, &lb);
    int c = flabel_cmp(&la, (int)(a & 1), &lb, (int)(b & 1));
    return c ? c : (a > b) - (a < b);
}

/* Write the stacks in byte order: each trie node's children as the keys
 * "label" (the node) and "label;" (the stacks below it) sorted, each key's
 * block in turn, with the stack so far in `path`. */
static vp_errcode fold_write(folded *F, vp_xout *o, int diff, uint64_t *lines, vp_error *err)
{
    uint32_t *keys = malloc(((size_t)F->n * 2 + 1) * sizeof *keys);
    uint32_t *start = malloc(((size_t)F->n + 1) * sizeof *start);
    /* the walk: (trie node, next key) per level, and where its label began in path */
    uint32_t *stack = malloc(((size_t)F->n * 2 + 2) * sizeof *stack);
    size_t *mark = malloc(((size_t)F->n + 1) * sizeof *mark);
    vp_xstr path = {0};
    if (!keys || !start || !stack || !mark) {
        free(keys), free(start), free(stack), free(mark);
        return oom(err);
    }
    uint32_t nk = 0;
    for (uint32_t p = 0; p < F->n; p++) {
        start[p] = nk;
        for (uint32_t c = F->t[p].first_child; c != UINT32_MAX; c = F->t[c].next_sibling) {
            keys[nk++] = c << 1;
            if (F->t[c].first_child != UINT32_MAX)
                keys[nk++] = c << 1 | 1;
        }
        vp_sort_idx(keys + start[p], nk - start[p], cmp_fkey, F);
    }
    uint32_t sp = 0;
    stack[sp++] = 0;
    stack[sp++] = start[0];
    char num[48];
    while (sp) {
        uint32_t p = stack[sp - 2], k = stack[sp - 1];
        uint32_t end = p + 1 < F->n ? start[p + 1] : nk;
        if (k == end) {
            sp -= 2;
            if (sp)
                path.len = mark[sp / 2]; /* back to the parent's stack */
            continue;
        }
        stack[sp - 1] = k + 1;
        uint32_t key = keys[k], c = key >> 1;
        size_t before = path.len;
        flabel l;
        flabel_of(F, c, &l);
        for (int part = 0; part < 2; part++)
            for (size_t i = 0; i < l.n[part]; i++) {
                char b = (char)fold_byte((unsigned char)l.p[part][i]);
                vp_xstr_put(&path, &b, 1);
            }
        if (key & 1) { /* the stacks below c */
            vp_xstr_put(&path, ";", 1);
            mark[sp / 2] = before;
            stack[sp++] = c;
            stack[sp++] = start[c];
            continue;
        }
        const ftrie *t = &F->t[c];
        if (t->us[0] > 0 || (diff && t->us[1] > 0)) {
            vp_xout_put(o, path.p, path.len);
            int len = diff ? snprintf(num, sizeof num, " %llu %llu\n", (unsigned long long)t->us[1],
                                      (unsigned long long)t->us[0])
                           : snprintf(num, sizeof num, " %llu\n", (unsigned long long)t->us[0]);
            vp_xout_put(o, num, (size_t)len);
            (*lines)++;
        }
        path.len = before;
    }
    int lost = path.oom;
    vp_xstr_free(&path);
    free(keys), free(start), free(stack), free(mark);
    return lost ? oom(err) : VP_OK;
}

vp_errcode vp_export_vprof_folded(vp_vprof *m, vp_vprof *base, FILE *f, const vp_export_opts *opt,
                                  uint64_t *lines, uint64_t *total_us, vp_error *err)
{
    *lines = *total_us = 0;
    folded F;
    memset(&F, 0, sizeof F);
    F.m[0] = m;
    F.m[1] = base;
    size_t want = ((size_t)m->node_count + (base ? base->node_count : 0) + 1) * 2;
    F.nslots = 1;
    while (F.nslots < want)
        F.nslots <<= 1;
    F.slot = malloc(F.nslots * sizeof *F.slot);
    vp_errcode rc = F.slot && fold_grow(&F) ? VP_OK : oom(err);
    if (rc == VP_OK) {
        memset(F.slot, 0xFF, F.nslots * sizeof *F.slot);
        F.t[F.n++] = (ftrie){0, 0, 0, UINT32_MAX, UINT32_MAX, 0, {0, 0}}; /* above the roots */
        rc = fold_side(&F, 0, err);
    }
    if (rc == VP_OK && base)
        rc = fold_side(&F, 1, err);
    free(F.slot);
    for (uint32_t i = 1; rc == VP_OK && i < F.n; i++)
        *total_us += F.t[i].us[0];
    vp_xout o;
    if (rc == VP_OK && !vp_xout_init(&o, f))
        rc = oom(err);
    else if (rc == VP_OK)
        rc = finish_output(&o, opt, fold_write(&F, &o, base != NULL, lines, err), err);
    free(F.t);
    return rc;
}
