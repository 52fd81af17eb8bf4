/* The VProf writer of bench/gen_vprof.c (vprof_write.h). */
#include "vprof_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOK_START = 0, TOK_ADDNODE = 1, TOK_ADDGROUP = 2, TOK_TIMINGS = 3, TOK_END = 4 };

/* One node timing is at most 3 (calls) + 2 + 8 (time) bytes. */
#define TIMING_MAX 13
#define OUT_CAP (1u << 20)
#define NO_SLOT UINT32_MAX

const vp_vprof_wgroup_def vp_vprof_writer_defaults[VP_VPROF_WRITER_DEFAULTS] = {
    {"Unaccounted", 6},
    {"World Rendering", 1},
    {"Displacement_Rendering", 1},
    {"Game", 6},
    {"Player", 6},
    {"NPCs", 6},
    {"Server Animation", 6},
    {"Client_Animation", 1},
    {"Physics", 6},
    {"Static_Prop_Rendering", 1},
    {"Other_Model_Rendering", 1},
    {"Fast Path Model Rendering", 1},
    {"Light_Cache", 1},
    {"Brush_Model_Rendering", 1},
    {"Shadow_Rendering", 1},
    {"Detail_Prop_Rendering", 1},
    {"Particle/Effect_Rendering", 1},
    {"Ropes", 1},
    {"Dynamic_Light_Rendering", 1},
    {"Networking", 6},
    {"Sound", 6},
    {"VGUI", 6},
    {"FileSystem", 6},
    {"Prediction", 1},
    {"Interpolation", 1},
    {"Swap_Buffers", 1},
    {"Occlusion", 1},
    {"Overlays", 1},
    {"Tools", 5},
    {"Texture_Cache", 1},
    {"Replay", 2},
};

typedef struct bytebuf {
    uint8_t *p;
    size_t len, cap;
} bytebuf;

typedef struct wnode {
    int32_t id;
    uint32_t parent, first_child, next_sibling; /* slots, NO_SLOT for none */
} wnode;

struct vp_vprof_writer {
    FILE *f;
    char *path;
    uint64_t flushed;   /* bytes handed to the file */
    vp_vprof_wopts opts;
    uint8_t *out;       /* output buffer, OUT_CAP bytes */
    size_t out_len;

    wnode *nodes;
    size_t nnodes, nodes_cap;
    /* Open-addressing map from node ID to slot + 1 (0 = empty). */
    uint32_t *map_slot;
    int32_t *map_id;
    size_t map_cap;

    uint32_t *order; /* slots in pre-order; rebuilt when the tree changed */
    size_t order_len;
    int order_dirty;

    bytebuf pend_groups, pend_nodes;
    size_t ngroups;
};

static vp_errcode writer_flush(vp_vprof_writer *w, vp_error *err)
{
    if (w->out_len && fwrite(w->out, 1, w->out_len, w->f) != w->out_len)
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot write %s: %s", w->path, strerror(errno));
    w->flushed += w->out_len;
    w->out_len = 0;
    return VP_OK;
}

/* Make room for n contiguous bytes in the output buffer. */
static vp_errcode writer_reserve(vp_vprof_writer *w, size_t n, vp_error *err)
{
    if (OUT_CAP - w->out_len >= n)
        return VP_OK;
    return writer_flush(w, err);
}

static vp_errcode writer_put(vp_vprof_writer *w, const void *bytes, size_t n, vp_error *err)
{
    const uint8_t *b = bytes;
    while (n) {
        if (w->out_len == OUT_CAP && writer_flush(w, err) != VP_OK)
            return err ? err->code : VP_EIO;
        size_t k = OUT_CAP - w->out_len;
        if (k > n)
            k = n;
        memcpy(w->out + w->out_len, b, k);
        w->out_len += k;
        b += k;
        n -= k;
    }
    return VP_OK;
}

static inline uint8_t *put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static inline uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    return p + 4;
}

static inline uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    p = put_u32(p, (uint32_t)v);
    return put_u32(p, (uint32_t)(v >> 32));
}

static int buf_append(bytebuf *b, const void *bytes, size_t n)
{
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, bytes, n);
    b->len += n;
    return 1;
}

static int buf_append_i32(bytebuf *b, int32_t v)
{
    uint8_t tmp[4];
    put_u32(tmp, (uint32_t)v);
    return buf_append(b, tmp, 4);
}

static size_t map_hash(int32_t id, size_t cap)
{
    return (size_t)(((uint32_t)id * 2654435761u) & (uint32_t)(cap - 1));
}

static long map_get(const vp_vprof_writer *w, int32_t id)
{
    for (size_t i = map_hash(id, w->map_cap);; i = (i + 1) & (w->map_cap - 1)) {
        if (!w->map_slot[i])
            return -1;
        if (w->map_id[i] == id)
            return (long)w->map_slot[i] - 1;
    }
}

static void map_put_nogrow(vp_vprof_writer *w, int32_t id, uint32_t slot)
{
    size_t i = map_hash(id, w->map_cap);
    while (w->map_slot[i])
        i = (i + 1) & (w->map_cap - 1);
    w->map_id[i] = id;
    w->map_slot[i] = slot + 1;
}

/* Keep the load factor at or below one half so probes stay short. */
static int map_put(vp_vprof_writer *w, int32_t id, uint32_t slot)
{
    if ((w->nnodes + 1) * 2 > w->map_cap) {
        size_t cap = w->map_cap ? w->map_cap * 2 : 64;
        uint32_t *ns = calloc(cap, sizeof *ns);
        int32_t *ni = malloc(cap * sizeof *ni);
        if (!ns || !ni) {
            free(ns);
            free(ni);
            return 0;
        }
        uint32_t *os = w->map_slot;
        int32_t *oi = w->map_id;
        size_t ocap = w->map_cap;
        w->map_slot = ns;
        w->map_id = ni;
        w->map_cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (os[i])
                map_put_nogrow(w, oi[i], os[i] - 1);
        free(os);
        free(oi);
    }
    map_put_nogrow(w, id, slot);
    return 1;
}

static int tree_add(vp_vprof_writer *w, int32_t id, uint32_t parent)
{
    if (w->nnodes == w->nodes_cap) {
        size_t cap = w->nodes_cap ? w->nodes_cap * 2 : 64;
        wnode *n = realloc(w->nodes, cap * sizeof *n);
        if (!n)
            return 0;
        w->nodes = n;
        w->nodes_cap = cap;
    }
    if (!map_put(w, id, (uint32_t)w->nnodes))
        return 0;
    uint32_t slot = (uint32_t)w->nnodes++;
    wnode *n = &w->nodes[slot];
    n->id = id;
    n->parent = parent;
    n->first_child = NO_SLOT;
    n->next_sibling = NO_SLOT;
    if (parent != NO_SLOT) {
        /* Prepend, as CVProfNode::GetSubNode does. */
        n->next_sibling = w->nodes[parent].first_child;
        w->nodes[parent].first_child = slot;
    }
    w->order_dirty = 1;
    return 1;
}

/* Pre-order walk without recursion: the tree's depth is the caller's. */
static int order_rebuild(vp_vprof_writer *w)
{
    uint32_t *o = realloc(w->order, w->nnodes * sizeof *o);
    if (!o)
        return 0;
    w->order = o;
    size_t k = 0;
    uint32_t s = 0;
    for (;;) {
        o[k++] = s;
        if (w->nodes[s].first_child != NO_SLOT) {
            s = w->nodes[s].first_child;
            continue;
        }
        while (s != 0 && w->nodes[s].next_sibling == NO_SLOT)
            s = w->nodes[s].parent;
        if (s == 0)
            break;
        s = w->nodes[s].next_sibling;
    }
    w->order_len = k;
    w->order_dirty = 0;
    return 1;
}

void vp_vprof_wopts_init(vp_vprof_wopts *o)
{
    o->version = 1;
    o->root_id = 0;
    o->escape_width = 4;
    o->group_base = 0;
}

static void writer_free(vp_vprof_writer *w)
{
    if (!w)
        return;
    free(w->path);
    free(w->out);
    free(w->nodes);
    free(w->map_slot);
    free(w->map_id);
    free(w->order);
    free(w->pend_groups.p);
    free(w->pend_nodes.p);
    free(w);
}

vp_vprof_writer *vp_vprof_writer_open(const char *path, const vp_vprof_wopts *o, vp_error *err)
{
    vp_vprof_wopts def;
    if (!o) {
        vp_vprof_wopts_init(&def);
        o = &def;
    }
    if (o->escape_width != 4 && o->escape_width != 8) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "escape_width must be 4 or 8, got %d",
                o->escape_width);
        return NULL;
    }
    vp_vprof_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->out = malloc(OUT_CAP)) ||
        !tree_add(w, o->root_id, NO_SLOT)) {
        writer_free(w);
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
        return NULL;
    }
    w->opts = *o;
    if (!(w->path = strdup(path))) {
        writer_free(w);
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
        return NULL;
    }
    if (!(w->f = fopen(path, "wb"))) {
        int e = errno;
        vp_fail(err, e == ENOENT ? VP_ENOENT : e == EISDIR ? VP_EISDIR : VP_EIO, UINT64_MAX,
                "cannot create %s: %s", path, strerror(e));
        writer_free(w);
        return NULL;
    }
    uint8_t hdr[8];
    put_u32(put_u32(hdr, (uint32_t)o->version), (uint32_t)o->root_id);
    writer_put(w, hdr, sizeof hdr, NULL);
    return w;
}

vp_errcode vp_vprof_writer_group(vp_vprof_writer *w, const char *name, int32_t flags,
                                 int32_t *id, vp_error *err)
{
    if ((int64_t)w->opts.group_base + (int64_t)w->ngroups > INT32_MAX)
        return vp_fail(err, VP_ELIMIT, UINT64_MAX, "too many budget groups");
    uint8_t tok = TOK_ADDGROUP;
    if (!buf_append(&w->pend_groups, &tok, 1) ||
        !buf_append(&w->pend_groups, name, strlen(name) + 1) ||
        !buf_append_i32(&w->pend_groups, flags))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    if (id)
        *id = (int32_t)(w->opts.group_base + (int64_t)w->ngroups);
    w->ngroups++;
    return VP_OK;
}

vp_errcode vp_vprof_writer_node(vp_vprof_writer *w, int32_t parent_id, const char *name,
                                int32_t group_id, int32_t node_id, size_t *slot, vp_error *err)
{
    long parent = map_get(w, parent_id);
    if (parent < 0)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "unknown parent node id %ld",
                       (long)parent_id);
    if (map_get(w, node_id) >= 0)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "node id %ld is already used",
                       (long)node_id);
    if (w->nnodes >= UINT32_MAX - 1)
        return vp_fail(err, VP_ELIMIT, UINT64_MAX, "too many nodes");
    size_t mark = w->pend_nodes.len;
    uint8_t tok = TOK_ADDNODE;
    if (!buf_append(&w->pend_nodes, &tok, 1) || !buf_append_i32(&w->pend_nodes, parent_id) ||
        !buf_append(&w->pend_nodes, name, strlen(name) + 1) ||
        !buf_append_i32(&w->pend_nodes, group_id) || !buf_append_i32(&w->pend_nodes, node_id) ||
        !tree_add(w, node_id, (uint32_t)parent)) {
        w->pend_nodes.len = mark;
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    }
    if (slot)
        *slot = w->nnodes - 1;
    return VP_OK;
}

long vp_vprof_writer_slot(const vp_vprof_writer *w, int32_t id)
{
    return map_get(w, id);
}

vp_errcode vp_vprof_writer_frame(vp_vprof_writer *w, int32_t tick, const vp_vprof_wtiming *times,
                                 vp_error *err)
{
    const int wide = w->opts.escape_width == 8;
    if (times && !wide)
        for (size_t i = 0; i < w->nnodes; i++)
            if (times[i].time_us / 4 > UINT32_MAX)
                return vp_fail(err, VP_ELIMIT, UINT64_MAX,
                               "time %llu us of node id %ld does not fit escape width 4",
                               (unsigned long long)times[i].time_us, (long)w->nodes[i].id);
    if (w->order_dirty && !order_rebuild(w))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");

    uint8_t head[5] = {TOK_START};
    put_u32(head + 1, (uint32_t)tick);
    if (writer_put(w, head, sizeof head, err) != VP_OK ||
        writer_put(w, w->pend_groups.p, w->pend_groups.len, err) != VP_OK ||
        writer_put(w, w->pend_nodes.p, w->pend_nodes.len, err) != VP_OK)
        return err ? err->code : VP_EIO;
    w->pend_groups.len = 0;
    w->pend_nodes.len = 0;

    uint8_t tok = TOK_TIMINGS;
    if (writer_put(w, &tok, 1, err) != VP_OK)
        return err ? err->code : VP_EIO;
    static const vp_vprof_wtiming zero;
    for (size_t i = 0; i < w->order_len; i++) {
        if (writer_reserve(w, TIMING_MAX, err) != VP_OK)
            return err ? err->code : VP_EIO;
        const vp_vprof_wtiming *t = times ? &times[w->order[i]] : &zero;
        uint8_t *p = w->out + w->out_len;
        uint32_t calls = t->calls > 65535 ? 65535 : t->calls;
        if (calls < 255) {
            *p++ = (uint8_t)calls;
        } else {
            *p++ = 255;
            p = put_u16(p, (uint16_t)calls);
        }
        uint64_t units = t->time_us / 4;
        if (units < 0xFFFF) {
            p = put_u16(p, (uint16_t)units);
        } else {
            p = put_u16(p, 0xFFFF);
            p = wide ? put_u64(p, units) : put_u32(p, (uint32_t)units);
        }
        w->out_len = (size_t)(p - w->out);
    }
    tok = TOK_END;
    if (writer_put(w, &tok, 1, err) != VP_OK)
        return err ? err->code : VP_EIO;
    return VP_OK;
}

vp_errcode vp_vprof_writer_close(vp_vprof_writer *w, uint64_t *bytes, vp_error *err)
{
    vp_errcode rc = writer_flush(w, err);
    if (fclose(w->f) != 0 && rc == VP_OK)
        rc = vp_fail(err, VP_EIO, UINT64_MAX, "cannot write %s: %s", w->path, strerror(errno));
    if (bytes)
        *bytes = w->flushed;
    writer_free(w);
    return rc;
}
