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
    const vp_export_gcols *q;
    uint64_t *sum; /* by group index, this column so far (units) */
    double *total; /* by group index, the others' ms over the columns so far */
    uint32_t col;
} gcols;

/* Column col is complete: the shown groups' ms, the others' mean, each
 * added in rank order as vp.charts added them when it had every group's
 * column (so the chart's bytes are the same). */
static void gcols_flush(gcols *g)
{
    const vp_export_gcols *q = g->q;
    uint32_t n = q->frames[g->col];
    double other = 0;
    for (uint32_t k = 0; k < q->norder; k++) {
        uint32_t gi = q->order[k];
        double ms = vp_vprof_ms(g->sum[gi]);
        g->sum[gi] = 0;
        if (k < q->keep) {
            q->out[(size_t)g->col * q->keep + k] = ms;
        } else {
            g->total[gi] += ms;
            other += n > 0 ? ms / n : 0;
        }
    }
    q->other[g->col] = other;
}

static int gcols_frame(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                       const uint64_t *self, const uint32_t *calls)
{
    (void)units;
    (void)calls;
    gcols *g = ud;
    uint32_t col = (uint32_t)((uint64_t)fi * g->q->cols / g->m->frame_count);
    if (col != g->col) {
        gcols_flush(g);
        g->col = col;
    }
    g->q->frames[col]++;
    for (uint32_t pos = 0; pos < ep->n; pos++)
        if (ep->group[pos] != VP_VPROF_NO_NODE)
            g->sum[ep->group[pos]] += self[pos];
    return 0;
}

vp_errcode vp_export_vprof_group_columns(vp_vprof *m, const vp_export_gcols *q, vp_error *err)
{
    memset(q->out, 0, (size_t)q->cols * q->keep * sizeof *q->out);
    memset(q->other, 0, (size_t)q->cols * sizeof *q->other);
    memset(q->frames, 0, (size_t)q->cols * sizeof *q->frames);
    *q->other_total = 0;
    if (!m->frame_count || !q->cols)
        return VP_OK;
    gcols g = {m, q, calloc((size_t)m->group_count + 1, sizeof(uint64_t)),
               calloc((size_t)m->group_count + 1, sizeof(double)), 0};
    vp_errcode rc = g.sum && g.total ? vp_vprof_pass(m, 0, m->frame_count - 1, gcols_frame, &g, err) : oom(err);
    if (rc == VP_OK) {
        gcols_flush(&g);
        for (uint32_t k = q->keep; k < q->norder; k++)
            *q->other_total += g.total[q->order[k]];
    }
    free(g.sum);
    free(g.total);
    return rc;
}
