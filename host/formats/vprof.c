/* VProf reader. Layout facts: ../shared/specs/vprof-format.md, corrected by
 * format-notes.md (escape width 4 or 8, positional group ids starting at 0
 * or 31, prepended children, frame time from the root's children). */
#include "formats/vprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "core/sort.h"

enum {
    TOK_START_FRAME = 0,
    TOK_ADD_NODE = 1,
    TOK_ADD_GROUP = 2,
    TOK_TIMINGS = 3,
    TOK_END_FRAME = 4,
};

static const struct {
    const char *name;
    int32_t flags;
} default_groups[VP_VPROF_DEFAULT_GROUPS] = {
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

/* ---- int32 -> index map (open addressing) ---------------------------- */

typedef struct vp_idmap {
    int32_t *keys;
    uint32_t *vals; /* VP_VPROF_NO_NODE marks an empty slot */
    uint32_t cap, count;
} vp_idmap;

static uint32_t idmap_hash(int32_t k)
{
    uint32_t x = (uint32_t)k;
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static uint32_t idmap_get(const vp_idmap *m, int32_t k)
{
    if (!m || !m->cap)
        return VP_VPROF_NO_NODE;
    for (uint32_t i = idmap_hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->vals[i] == VP_VPROF_NO_NODE)
            return VP_VPROF_NO_NODE;
        if (m->keys[i] == k)
            return m->vals[i];
    }
}

static int idmap_put(vp_idmap *m, int32_t k, uint32_t v);

static int idmap_grow(vp_idmap *m)
{
    uint32_t ncap = m->cap ? m->cap * 2 : 64;
    if (ncap < m->cap)
        return 0;
    vp_idmap n = {malloc(ncap * sizeof(int32_t)), malloc(ncap * sizeof(uint32_t)), ncap, 0};
    if (!n.keys || !n.vals) {
        free(n.keys);
        free(n.vals);
        return 0;
    }
    memset(n.vals, 0xff, ncap * sizeof(uint32_t));
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->vals[i] != VP_VPROF_NO_NODE)
            idmap_put(&n, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = n;
    return 1;
}

/* Insert or overwrite; 0 on OOM. */
static int idmap_put(vp_idmap *m, int32_t k, uint32_t v)
{
    if ((m->count + 1) * 2 > m->cap && !idmap_grow(m))
        return 0;
    uint32_t i = idmap_hash(k) & (m->cap - 1);
    while (m->vals[i] != VP_VPROF_NO_NODE && m->keys[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (m->vals[i] == VP_VPROF_NO_NODE)
        m->count++;
    m->keys[i] = k;
    m->vals[i] = v;
    return 1;
}

static void idmap_clear(vp_idmap *m)
{
    if (m->cap)
        memset(m->vals, 0xff, m->cap * sizeof(uint32_t));
    m->count = 0;
}

static void idmap_free(vp_idmap *m)
{
    if (!m)
        return;
    free(m->keys);
    free(m->vals);
    free(m);
}

/* ---- growth helpers ---------------------------------------------------- */

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    uint64_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    if (ncap > UINT32_MAX - 1)
        ncap = UINT32_MAX - 1;
    if (ncap < need)
        return 0;
    void *n = realloc(*p, (size_t)ncap * elem);
    if (!n)
        return 0;
    *p = n;
    *cap = (uint32_t)ncap;
    return 1;
}

static uint32_t names_add(vp_vprof *m, const char *s, size_t len)
{
    if (m->names_len + len + 1 > m->names_cap) {
        size_t ncap = m->names_cap ? m->names_cap : 4096;
        while (ncap < m->names_len + len + 1)
            ncap *= 2;
        char *n = realloc(m->names, ncap);
        if (!n)
            return UINT32_MAX;
        m->names = n;
        m->names_cap = ncap;
    }
    if (m->names_len + len + 1 > UINT32_MAX)
        return UINT32_MAX;
    uint32_t off = (uint32_t)m->names_len;
    memcpy(m->names + off, s, len);
    m->names[off + len] = 0;
    m->names_len += len + 1;
    return off;
}

/* ---- model ------------------------------------------------------------- */

static vp_vprof *model_new(void)
{
    vp_vprof *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->node_ids = calloc(1, sizeof *m->node_ids);
    m->group_ids = calloc(1, sizeof *m->group_ids);
    m->frame_ms = vp_series_new(0);
    if (!m->node_ids || !m->group_ids || !m->frame_ms) {
        vp_vprof_free(m);
        return NULL;
    }
    m->escape_width = 4;
    return m;
}

void vp_vprof_free(vp_vprof *m)
{
    if (!m)
        return;
    vp_map_close(&m->map);
    free(m->nodes);
    for (uint32_t i = 0; i < m->group_count; i++)
        vp_series_unref(m->groups[i].self_ms);
    free(m->groups);
    free(m->names);
    free(m->frame_off);
    free(m->frame_tick);
    free(m->frame_nodes);
    vp_series_unref(m->frame_ms);
    vp_warnings_free(&m->warnings);
    idmap_free(m->node_ids);
    idmap_free(m->group_ids);
    free(m->epoch.order);
    free(m->epoch.parent_pos);
    free(m->epoch.group);
    free(m);
}

uint32_t vp_vprof_node_by_id(const vp_vprof *m, int32_t id)
{
    return idmap_get(m->node_ids, id);
}

uint32_t vp_vprof_group_by_id(const vp_vprof *m, int32_t id)
{
    return idmap_get(m->group_ids, id);
}

static uint32_t group_add(vp_vprof *m, int32_t id, const char *name, size_t len, int32_t flags,
                          int declared)
{
    if (!grow((void **)&m->groups, &m->group_cap, m->group_count + 1, sizeof *m->groups))
        return VP_VPROF_NO_NODE;
    uint32_t name_off = names_add(m, name, len);
    if (name_off == UINT32_MAX)
        return VP_VPROF_NO_NODE;
    uint32_t gi = m->group_count;
    if (!idmap_put(m->group_ids, id, gi))
        return VP_VPROF_NO_NODE;
    vp_vprof_group *g = &m->groups[m->group_count++];
    memset(g, 0, sizeof *g);
    g->id = id;
    g->flags = flags;
    g->name = name_off;
    g->declared = (uint8_t)declared;
    return gi;
}

/* The group a node names, created from the default table (or as group#N)
 * when the file never declared it. */
static uint32_t group_resolve(vp_vprof *m, int32_t id, int warn, uint64_t off)
{
    uint32_t gi = vp_vprof_group_by_id(m, id);
    if (gi != VP_VPROF_NO_NODE)
        return gi;
    if (id >= 0 && id < VP_VPROF_DEFAULT_GROUPS) {
        if (warn)
            vp_warn(&m->warnings,
                    "at byte %llu: budget group id %d is never declared; using the default "
                    "table's name '%s'",
                    (unsigned long long)off, (int)id, default_groups[id].name);
        return group_add(m, id, default_groups[id].name, strlen(default_groups[id].name),
                         default_groups[id].flags, 0);
    }
    char name[32];
    int len = snprintf(name, sizeof name, "group#%d", (int)id);
    if (warn)
        vp_warn(&m->warnings, "at byte %llu: budget group id %d is never declared; calling it '%s'",
                (unsigned long long)off, (int)id, name);
    return group_add(m, id, name, (size_t)len, 0, 0);
}

uint32_t vp_vprof_visible_group(const vp_vprof *m, uint32_t node)
{
    for (uint32_t v = node; v != VP_VPROF_NO_NODE; v = m->nodes[v].parent)
        if (!(m->groups[m->nodes[v].group].flags & VP_BUDGETFLAG_HIDDEN))
            return m->nodes[v].group;
    return m->nodes[node].group;
}

/* ---- epochs ------------------------------------------------------------ */

const vp_vprof_epoch *vp_vprof_epoch_for(vp_vprof *m, uint32_t n)
{
    vp_vprof_epoch *ep = &m->epoch;
    if (ep->order && ep->n == n)
        return ep;
    uint32_t *order = realloc(ep->order, (size_t)n * sizeof *order);
    if (order)
        ep->order = order;
    uint32_t *pp = realloc(ep->parent_pos, (size_t)n * sizeof *pp);
    if (pp)
        ep->parent_pos = pp;
    uint32_t *grp = realloc(ep->group, (size_t)n * sizeof *grp);
    if (grp)
        ep->group = grp;
    if (!order || !pp || !grp) {
        ep->n = 0;
        return NULL;
    }
    /* Pre-order walk without recursion (a hostile file can nest deeply).
     * Children lists are newest first, so the nodes not yet added at this
     * count form a prefix of each list that is skipped. group[] doubles as
     * pos-of-node scratch: a parent always precedes its children, so its
     * position is known when a child is emitted. */
    uint32_t pos = 0, v = 0;
    uint32_t *posof = grp; /* reused below: filled before group[] is */
    for (;;) {
        order[pos] = v;
        posof[v] = pos;
        pp[pos] = v == 0 ? n : posof[m->nodes[v].parent];
        pos++;
        uint32_t c = m->nodes[v].first_child;
        while (c != VP_VPROF_NO_NODE && c >= n)
            c = m->nodes[c].next_sibling;
        if (c != VP_VPROF_NO_NODE) {
            v = c;
            continue;
        }
        while (v != 0) {
            uint32_t s = m->nodes[v].next_sibling;
            while (s != VP_VPROF_NO_NODE && s >= n)
                s = m->nodes[s].next_sibling;
            if (s != VP_VPROF_NO_NODE) {
                v = s;
                break;
            }
            v = m->nodes[v].parent;
        }
        if (v == 0)
            break;
    }
    /* posof[] aliased group[] (both indexed < n); fill group[] now. */
    for (uint32_t i = 0; i < n; i++)
        grp[i] = m->nodes[order[i]].group;
    ep->n = pos;
    return ep;
}

/* ---- timing records ------------------------------------------------------ */

typedef struct decode_stats {
    int escapes;   /* time values that used the escape */
    int anomalies; /* escaped values below their escape threshold */
} decode_stats;

static inline uint64_t rd_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Decode n timing records (calls, time) at *pp. Returns the number of
 * records decoded; fewer than n means the buffer ended first. */
static uint32_t timings_decode(const uint8_t **pp, const uint8_t *end, uint32_t n, int ew,
                               uint64_t *units, uint32_t *calls, decode_stats *st)
{
    const uint8_t *p = *pp;
    const size_t max_rec = 1 + 2 + 2 + 8;
    uint32_t i = 0;
    /* Fast path: while a whole worst-case record fits, skip bounds checks. */
    for (; i < n && (size_t)(end - p) >= max_rec; i++) {
        uint32_t c = p[0];
        if (c == 255) {
            c = (uint32_t)p[1] | (uint32_t)p[2] << 8;
            st->anomalies += c < 255;
            p += 3;
        } else {
            p += 1;
        }
        uint64_t t = (uint64_t)p[0] | (uint64_t)p[1] << 8;
        p += 2;
        if (t == 0xFFFF) {
            t = ew == 4 ? rd_le(p, 4) : rd_le(p, 8);
            p += ew;
            st->escapes++;
            st->anomalies += t < 0xFFFF;
        }
        units[i] = t;
        calls[i] = c;
    }
    for (; i < n; i++) {
        if (end - p < 3)
            break;
        uint32_t c = p[0];
        const uint8_t *q = p + 1;
        if (c == 255) {
            c = (uint32_t)p[1] | (uint32_t)p[2] << 8;
            st->anomalies += c < 255;
            q = p + 3;
        }
        if (end - q < 2)
            break;
        uint64_t t = (uint64_t)q[0] | (uint64_t)q[1] << 8;
        q += 2;
        if (t == 0xFFFF) {
            if (end - q < ew)
                break;
            t = rd_le(q, ew);
            q += ew;
            st->escapes++;
            st->anomalies += t < 0xFFFF;
        }
        units[i] = t;
        calls[i] = c;
        p = q;
    }
    *pp = p;
    return i;
}

/* The open pass's decoder: like timings_decode, but calls are only checked,
 * and each time is also added to its parent's slot of csum (n + 1 slots;
 * the root's parent slot n is zeroed by the caller, every other slot here
 * as its own record is read), so self times need no second walk over the
 * tree. */
static uint32_t timings_index(const uint8_t **pp, const uint8_t *end, uint32_t n, int ew,
                              const uint32_t *parent_pos, uint64_t *units, uint64_t *csum,
                              decode_stats *st)
{
    const uint8_t *p = *pp;
    const size_t max_rec = 1 + 2 + 2 + 8;
    uint32_t i = 0;
    while (i < n && (size_t)(end - p) >= 4 * max_rec) {
        /* Almost every record is the short form (calls < 255, time below
         * 0xFFFF units): 3 bytes. Four of them are taken at fixed offsets,
         * which breaks the chain of lengths the record-by-record loop has
         * to follow; any escape drops to that loop for one record. */
        if (i + 4 <= n && p[0] != 255 && p[3] != 255 && p[6] != 255 && p[9] != 255) {
            uint64_t t0 = (uint64_t)p[1] | (uint64_t)p[2] << 8;
            uint64_t t1 = (uint64_t)p[4] | (uint64_t)p[5] << 8;
            uint64_t t2 = (uint64_t)p[7] | (uint64_t)p[8] << 8;
            uint64_t t3 = (uint64_t)p[10] | (uint64_t)p[11] << 8;
            if (t0 != 0xFFFF && t1 != 0xFFFF && t2 != 0xFFFF && t3 != 0xFFFF) {
                units[i] = t0;
                units[i + 1] = t1;
                units[i + 2] = t2;
                units[i + 3] = t3;
                /* A parent precedes its children in pre-order, so zeroing a
                 * slot when its record is read is always soon enough. */
                csum[i] = csum[i + 1] = csum[i + 2] = csum[i + 3] = 0;
                csum[parent_pos[i]] += t0;
                csum[parent_pos[i + 1]] += t1;
                csum[parent_pos[i + 2]] += t2;
                csum[parent_pos[i + 3]] += t3;
                p += 12;
                i += 4;
                continue;
            }
        }
        if (p[0] == 255) {
            st->anomalies += ((uint32_t)p[1] | (uint32_t)p[2] << 8) < 255;
            p += 3;
        } else {
            p += 1;
        }
        uint64_t t = (uint64_t)p[0] | (uint64_t)p[1] << 8;
        p += 2;
        if (t == 0xFFFF) {
            t = rd_le(p, ew);
            p += ew;
            st->escapes++;
            st->anomalies += t < 0xFFFF;
        }
        units[i] = t;
        csum[i] = 0;
        csum[parent_pos[i]] += t;
        i++;
    }
    /* Near the end of the buffer the checked decoder does the rest. */
    uint32_t calls_scratch[64];
    while (i < n) {
        uint32_t k = n - i < 64 ? n - i : 64;
        uint32_t got = timings_decode(&p, end, k, ew, units + i, calls_scratch, st);
        for (uint32_t j = i; j < i + got; j++)
            csum[j] = 0;
        for (uint32_t j = i; j < i + got; j++)
            csum[parent_pos[j]] += units[j];
        i += got;
        if (got < k)
            break;
    }
    *pp = p;
    return i;
}

/* Self time by position: inclusive minus the children's inclusive times,
 * clamped at 0 (children can exceed their parent by timer truncation).
 * Returns the frame time: the root's children's sum, or the root's own
 * time when that is larger. */
static uint64_t self_by_pos(const vp_vprof_epoch *ep, const uint64_t *units, uint64_t *self)
{
    uint32_t n = ep->n;
    memset(self, 0, (size_t)n * sizeof *self);
    for (uint32_t pos = n; pos-- > 1;)
        self[ep->parent_pos[pos]] += units[pos];
    uint64_t root_children = n ? self[0] : 0;
    for (uint32_t pos = 0; pos < n; pos++)
        self[pos] = units[pos] > self[pos] ? units[pos] - self[pos] : 0;
    uint64_t root = n ? units[0] : 0;
    return root > root_children ? root : root_children;
}

/* ---- the open pass --------------------------------------------------- */

typedef struct scratch {
    uint64_t *units, *self;
    uint32_t *calls;
    uint32_t cap;
    uint64_t *gacc;
    uint32_t gcap;
} scratch;

static int scratch_fit(scratch *s, uint32_t n, uint32_t groups)
{
    if (n > s->cap) {
        uint64_t *u = realloc(s->units, (size_t)n * sizeof *u);
        if (u)
            s->units = u;
        /* self doubles as the open pass's child-sum array: n + 1 slots. */
        uint64_t *sf = realloc(s->self, ((size_t)n + 1) * sizeof *sf);
        if (sf)
            s->self = sf;
        uint32_t *c = realloc(s->calls, (size_t)n * sizeof *c);
        if (c)
            s->calls = c;
        if (!u || !sf || !c)
            return 0;
        s->cap = n;
    }
    if (groups > s->gcap) {
        uint64_t *g = realloc(s->gacc, (size_t)groups * sizeof *g);
        if (!g)
            return 0;
        s->gacc = g;
        s->gcap = groups;
    }
    return 1;
}

static void scratch_free(scratch *s)
{
    free(s->units);
    free(s->self);
    free(s->calls);
    free(s->gacc);
}

typedef enum { PARSE_CLEAN, PARSE_TRUNC, PARSE_ERROR } parse_status;

typedef struct attempt {
    vp_vprof *m;
    parse_status status;
    vp_error err;        /* PARSE_ERROR */
    char trunc_msg[320]; /* PARSE_TRUNC */
    decode_stats st;
    int nonzero;
} attempt;

static const char *token_name(unsigned t)
{
    switch (t) {
    case TOK_START_FRAME: return "Token_StartFrame";
    case TOK_ADD_NODE: return "Token_AddNode";
    case TOK_ADD_GROUP: return "Token_AddBudgetGroup";
    case TOK_TIMINGS: return "Token_Timings";
    case TOK_END_FRAME: return "Token_EndOfFrame";
    default: return "an unknown token";
    }
}

/* Add the node of an AddNode record. */
static vp_errcode node_add(vp_vprof *m, int32_t parent_id, const char *name, size_t len,
                           int32_t group_id, int32_t id, uint64_t rec_off, vp_error *err)
{
    uint32_t parent = vp_vprof_node_by_id(m, parent_id);
    if (parent == VP_VPROF_NO_NODE)
        return vp_fail(err, VP_EFORMAT, rec_off,
                       "node '%.*s' (id %d) names parent id %d, which no earlier record declared",
                       (int)(len > 80 ? 80 : len), name, (int)id, (int)parent_id);
    if (vp_vprof_node_by_id(m, id) != VP_VPROF_NO_NODE)
        return vp_fail(err, VP_EFORMAT, rec_off,
                       "node '%.*s' reuses id %d, which an earlier record declared",
                       (int)(len > 80 ? 80 : len), name, (int)id);
    uint32_t gi = group_resolve(m, group_id, m->group_base != VP_VPROF_DEFAULT_GROUPS ||
                                                 group_id >= VP_VPROF_DEFAULT_GROUPS,
                                rec_off);
    if (gi == VP_VPROF_NO_NODE ||
        !grow((void **)&m->nodes, &m->node_cap, m->node_count + 1, sizeof *m->nodes))
        return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    uint32_t name_off = names_add(m, name, len);
    uint32_t idx = m->node_count;
    if (name_off == UINT32_MAX || !idmap_put(m->node_ids, id, idx))
        return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    vp_vprof_node *nd = &m->nodes[m->node_count++];
    nd->id = id;
    nd->group_id = group_id;
    nd->parent = parent;
    nd->first_child = VP_VPROF_NO_NODE;
    nd->name = name_off;
    nd->depth = m->nodes[parent].depth + 1;
    nd->first_frame = m->frame_count;
    nd->group = gi;
    nd->dup = 0;
    /* The engine prepends a new child to its parent's list. */
    nd->next_sibling = m->nodes[parent].first_child;
    m->nodes[parent].first_child = idx;
    return VP_OK;
}

static vp_errcode group_record(vp_vprof *m, const char *name, size_t len, int32_t flags,
                               uint32_t *declared, uint64_t rec_off, vp_error *err)
{
    if (*declared == 0) {
        /* Positional ids start at 0 when the file re-sends every group (all
         * public engines), else after the 31 defaults. */
        m->group_base = (len == 11 && memcmp(name, "Unaccounted", 11) == 0)
                            ? 0
                            : VP_VPROF_DEFAULT_GROUPS;
        if (m->group_base)
            for (int32_t i = 0; i < VP_VPROF_DEFAULT_GROUPS; i++)
                if (vp_vprof_group_by_id(m, i) == VP_VPROF_NO_NODE &&
                    group_add(m, i, default_groups[i].name, strlen(default_groups[i].name),
                              default_groups[i].flags, 0) == VP_VPROF_NO_NODE)
                    return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    }
    int64_t id64 = (int64_t)m->group_base + (int64_t)*declared;
    if (id64 > INT32_MAX)
        return vp_fail(err, VP_ELIMIT, rec_off, "too many budget groups");
    int32_t id = (int32_t)id64;
    (*declared)++;
    uint32_t gi = vp_vprof_group_by_id(m, id);
    if (gi != VP_VPROF_NO_NODE) {
        /* Named by a node before its declaration: the declaration wins. */
        uint32_t name_off = names_add(m, name, len);
        if (name_off == UINT32_MAX)
            return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
        m->groups[gi].name = name_off;
        m->groups[gi].flags = flags;
        m->groups[gi].declared = 1;
        return VP_OK;
    }
    if (group_add(m, id, name, len, flags, 1) == VP_VPROF_NO_NODE)
        return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    return VP_OK;
}

/* Make sure every group that has a node present at this node count has a
 * self-time column, zero-filled for the frames before it appeared. */
static int columns_fit(vp_vprof *m, uint32_t from_node, uint32_t to_node)
{
    for (uint32_t i = from_node; i < to_node; i++) {
        vp_vprof_group *g = &m->groups[m->nodes[i].group];
        if (g->self_ms)
            continue;
        g->self_ms = vp_series_new(m->frame_count + 64);
        if (!g->self_ms || !vp_series_resize(g->self_ms, m->frame_count))
            return 0;
    }
    return 1;
}

/* Undo the structure added by a frame that turned out to be incomplete:
 * its nodes and groups never appear in a kept frame. Runs once, at the end. */
static int rollback(vp_vprof *m, uint32_t nodes, uint32_t groups)
{
    for (uint32_t i = groups; i < m->group_count; i++)
        vp_series_unref(m->groups[i].self_ms);
    m->node_count = nodes;
    m->group_count = groups;
    idmap_clear(m->node_ids);
    idmap_clear(m->group_ids);
    for (uint32_t i = 0; i < m->node_count; i++) {
        m->nodes[i].first_child = VP_VPROF_NO_NODE;
        if (!idmap_put(m->node_ids, m->nodes[i].id, i))
            return 0;
    }
    for (uint32_t i = 1; i < m->node_count; i++) {
        vp_vprof_node *nd = &m->nodes[i];
        nd->next_sibling = m->nodes[nd->parent].first_child;
        m->nodes[nd->parent].first_child = i;
    }
    for (uint32_t i = 0; i < m->group_count; i++)
        if (!idmap_put(m->group_ids, m->groups[i].id, i))
            return 0;
    m->epoch.n = 0;
    free(m->epoch.order);
    m->epoch.order = NULL;
    return 1;
}

static int frame_commit(vp_vprof *m, uint64_t off, int32_t tick, uint32_t n, uint64_t frame_units)
{
    uint32_t old_cap = m->frame_cap;
    if (!grow((void **)&m->frame_off, &m->frame_cap, m->frame_count + 1, sizeof *m->frame_off))
        return 0;
    if (m->frame_cap != old_cap) {
        /* The three arrays share frame_cap: grow the other two to match. */
        int32_t *t = realloc(m->frame_tick, (size_t)m->frame_cap * sizeof *t);
        if (t)
            m->frame_tick = t;
        uint32_t *fn = realloc(m->frame_nodes, (size_t)m->frame_cap * sizeof *fn);
        if (fn)
            m->frame_nodes = fn;
        if (!t || !fn) {
            m->frame_cap = old_cap;
            return 0;
        }
    }
    m->frame_off[m->frame_count] = off;
    m->frame_tick[m->frame_count] = tick;
    m->frame_nodes[m->frame_count] = n;
    m->frame_count++;
    return vp_series_push(m->frame_ms, vp_vprof_ms(frame_units));
}

#define TRUNC(...) snprintf(a->trunc_msg, sizeof a->trunc_msg, __VA_ARGS__)

static void attempt_run(attempt *a, const vp_map *map, int ew, const vp_open_opts *opts)
{
    vp_vprof *m = a->m;
    m->escape_width = ew;
    vp_cursor c;
    vp_cursor_init(&c, map->data, (size_t)map->size, 0);
    scratch s = {0};
    uint32_t declared = 0, epoch_nodes = 0;
    uint64_t next_release = VP_MAP_RELEASE_STEP;
    uint64_t size = map->size;

    if (!vp_rd_i32(&c, &m->version) || !vp_rd_i32(&c, &m->root_id)) {
        vp_fail(&a->err, VP_ETRUNC, 0,
                "expected the 8-byte VProf header (int32 version, int32 root node id), "
                "the file has %llu bytes",
                (unsigned long long)size);
        a->status = PARSE_ERROR;
        return;
    }
    if (m->version != 1) {
        vp_fail(&a->err, VP_EVERSION, 0, "VProf version %d is not known, expected 1",
                (int)m->version);
        a->status = PARSE_ERROR;
        return;
    }
    /* The root has no AddNode record. */
    if (!grow((void **)&m->nodes, &m->node_cap, 1, sizeof *m->nodes) ||
        !idmap_put(m->node_ids, m->root_id, 0))
        goto oom;
    m->nodes[0] = (vp_vprof_node){.id = m->root_id,
                                  .parent = VP_VPROF_NO_NODE,
                                  .first_child = VP_VPROF_NO_NODE,
                                  .next_sibling = VP_VPROF_NO_NODE,
                                  .name = names_add(m, "Root", 4),
                                  .group = VP_VPROF_NO_NODE};
    if (m->nodes[0].name == UINT32_MAX)
        goto oom;
    m->node_count = 1;

    while (vp_cursor_left(&c)) {
        uint64_t frame_off = vp_cursor_off(&c);
        uint32_t fno = m->frame_count + 1;
        uint32_t nodes_before = m->node_count, groups_before = m->group_count;
        uint8_t tok;
        int32_t tick;
        vp_rd_u8(&c, &tok);
        if (tok != TOK_START_FRAME) {
            vp_fail(&a->err, VP_EFORMAT, frame_off,
                    "expected Token_StartFrame (0) to begin frame %u%s, found byte %u (%s)", fno,
                    fno > 1 ? "" : " after the 8-byte header", tok, token_name(tok));
            a->status = PARSE_ERROR;
            break;
        }
        if (!vp_rd_i32(&c, &tick)) {
            TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                  "expected its int32 tick",
                  (unsigned long long)size, fno, (unsigned long long)frame_off);
            a->status = PARSE_TRUNC;
            break;
        }
        /* Structure records until Token_Timings. */
        for (;;) {
            uint64_t rec_off = vp_cursor_off(&c);
            if (!vp_rd_u8(&c, &tok)) {
                TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                      "expected Token_AddNode, Token_AddBudgetGroup or Token_Timings",
                      (unsigned long long)size, fno, (unsigned long long)frame_off);
                a->status = PARSE_TRUNC;
                break;
            }
            if (tok == TOK_TIMINGS)
                break;
            const char *name;
            size_t len;
            if (tok == TOK_ADD_GROUP) {
                int32_t flags;
                if (!vp_rd_cstr(&c, &name, &len) || !vp_rd_i32(&c, &flags)) {
                    TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte "
                          "%llu): expected the rest of the Token_AddBudgetGroup record at byte "
                          "%llu (NUL-terminated name, int32 flags)",
                          (unsigned long long)size, fno, (unsigned long long)frame_off,
                          (unsigned long long)rec_off);
                    a->status = PARSE_TRUNC;
                    break;
                }
                if (group_record(m, name, len, flags, &declared, rec_off, &a->err) != VP_OK) {
                    a->status = PARSE_ERROR;
                    break;
                }
            } else if (tok == TOK_ADD_NODE) {
                int32_t parent, group, id;
                if (!vp_rd_i32(&c, &parent) || !vp_rd_cstr(&c, &name, &len) ||
                    !vp_rd_i32(&c, &group) || !vp_rd_i32(&c, &id)) {
                    TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte "
                          "%llu): expected the rest of the Token_AddNode record at byte %llu "
                          "(int32 parent, NUL-terminated name, int32 group, int32 id)",
                          (unsigned long long)size, fno, (unsigned long long)frame_off,
                          (unsigned long long)rec_off);
                    a->status = PARSE_TRUNC;
                    break;
                }
                if (node_add(m, parent, name, len, group, id, rec_off, &a->err) != VP_OK) {
                    a->status = PARSE_ERROR;
                    break;
                }
            } else {
                vp_fail(&a->err, VP_EFORMAT, rec_off,
                        "expected Token_AddNode (1), Token_AddBudgetGroup (2) or Token_Timings "
                        "(3) in frame %u (which starts at byte %llu), found byte %u (%s)",
                        fno, (unsigned long long)frame_off, tok, token_name(tok));
                a->status = PARSE_ERROR;
                break;
            }
        }
        if (a->status != PARSE_CLEAN)
            goto frame_failed;

        uint32_t n = m->node_count;
        if (m->nodes[0].group == VP_VPROF_NO_NODE) {
            /* The engine's root node is in group 0 (Unaccounted). */
            m->nodes[0].group = group_resolve(m, 0, 0, 0);
            m->nodes[0].group_id = 0;
            if (m->nodes[0].group == VP_VPROF_NO_NODE)
                goto oom;
            epoch_nodes = 0;
        }
        const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, n);
        if (!ep || !columns_fit(m, epoch_nodes, n) || !scratch_fit(&s, n, m->group_count))
            goto oom;
        epoch_nodes = n;

        uint64_t timings_off = vp_cursor_off(&c);
        uint64_t *csum = s.self;
        csum[n] = 0; /* the root's parent slot; the others are zeroed as read */
        uint32_t got = timings_index(&c.p, c.end, n, ew, ep->parent_pos, s.units, csum, &a->st);
        if (got < n) {
            TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                  "expected the timings of %u nodes from byte %llu, found %u",
                  (unsigned long long)size, fno, (unsigned long long)frame_off, n,
                  (unsigned long long)timings_off, got);
            a->status = PARSE_TRUNC;
            goto frame_failed;
        }
        uint64_t end_off = vp_cursor_off(&c);
        if (!vp_rd_u8(&c, &tok)) {
            TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                  "expected Token_EndOfFrame (4)",
                  (unsigned long long)size, fno, (unsigned long long)frame_off);
            a->status = PARSE_TRUNC;
            goto frame_failed;
        }
        if (tok != TOK_END_FRAME) {
            vp_fail(&a->err, VP_EFORMAT, end_off,
                    "expected Token_EndOfFrame (4) after the timings of %u nodes in frame %u "
                    "(which starts at byte %llu), found byte %u",
                    n, fno, (unsigned long long)frame_off, tok);
            a->status = PARSE_ERROR;
            goto frame_failed;
        }

        /* Frame time: the root's children's sum, or the root's own time when
         * that is larger (format-notes: the root is ~0 in real captures). */
        uint64_t frame_units = s.units[0] > csum[0] ? s.units[0] : csum[0];
        memset(s.gacc, 0, (size_t)m->group_count * sizeof *s.gacc);
        uint64_t any = 0;
        for (uint32_t pos = 0; pos < n; pos++) {
            uint64_t u = s.units[pos], cs = csum[pos];
            any |= u;
            s.gacc[ep->group[pos]] += u > cs ? u - cs : 0;
        }
        a->nonzero |= any != 0;
        for (uint32_t g = 0; g < m->group_count; g++)
            if (m->groups[g].self_ms &&
                !vp_series_push_fast(m->groups[g].self_ms, vp_vprof_ms(s.gacc[g])))
                goto oom;
        if (!frame_commit(m, frame_off, tick, n, frame_units))
            goto oom;

        if (vp_cursor_off(&c) >= next_release) {
            vp_map_release((vp_map *)map, vp_cursor_off(&c));
            if (opts && opts->progress)
                opts->progress(opts->progress_ud, vp_cursor_off(&c), size);
            next_release = vp_cursor_off(&c) + VP_MAP_RELEASE_STEP;
        }
        continue;

    frame_failed:
        if (a->status == PARSE_TRUNC && !rollback(m, nodes_before, groups_before))
            goto oom;
        break;
    }
    vp_map_release((vp_map *)map, size);
    scratch_free(&s);
    return;
oom:
    scratch_free(&s);
    vp_fail(&a->err, VP_ENOMEM, UINT64_MAX, "out of memory");
    a->status = PARSE_ERROR;
}

/* Which of two readings of the same file makes more sense. */
static int attempt_better(const attempt *x, const attempt *y)
{
    static const int rank[] = {[PARSE_CLEAN] = 2, [PARSE_TRUNC] = 1, [PARSE_ERROR] = 0};
    if (rank[x->status] != rank[y->status])
        return rank[x->status] > rank[y->status];
    if (x->m->frame_count != y->m->frame_count)
        return x->m->frame_count > y->m->frame_count;
    return x->st.anomalies < y->st.anomalies;
}

static int cmp_sibling(uint32_t a, uint32_t b, const void *ctx)
{
    const vp_vprof *m = ctx;
    const vp_vprof_node *x = &m->nodes[a], *y = &m->nodes[b];
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    int c = strcmp(m->names + x->name, m->names + y->name);
    if (c)
        return c;
    return a < b ? -1 : 1;
}

/* Same-named siblings stay separate nodes; the later ones are numbered so
 * that paths stay unique ("#2", "#3"). Sorting by (parent, name, index)
 * keeps this O(n log n) however wide the tree. */
static int number_namesakes(vp_vprof *m)
{
    uint32_t n = m->node_count - 1;
    if (!n)
        return 1;
    uint32_t *idx = malloc((size_t)n * sizeof *idx);
    if (!idx)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i + 1;
    vp_sort_idx(idx, n, cmp_sibling, m);
    for (uint32_t i = 1, run = 1; i < n; i++) {
        const vp_vprof_node *prev = &m->nodes[idx[i - 1]];
        vp_vprof_node *cur = &m->nodes[idx[i]];
        if (prev->parent == cur->parent && strcmp(m->names + prev->name, m->names + cur->name) == 0)
            cur->dup = ++run;
        else
            run = 1;
    }
    free(idx);
    return 1;
}

/* Derived facts, computed once the reading is final. */
static int finalize(vp_vprof *m, const attempt *a)
{
    for (uint32_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].group != VP_VPROF_NO_NODE)
            m->groups[m->nodes[i].group].has_nodes = 1;
    for (uint32_t g = 0; g < m->group_count; g++)
        if (!m->groups[g].has_nodes) {
            vp_series_unref(m->groups[g].self_ms);
            m->groups[g].self_ms = NULL;
        }
    if (m->nodes[0].group == VP_VPROF_NO_NODE) {
        /* No frame: still give the root its group. */
        m->nodes[0].group = group_resolve(m, 0, 0, 0);
        if (m->nodes[0].group == VP_VPROF_NO_NODE)
            return 0;
        m->groups[m->nodes[0].group].has_nodes = 1;
    }
    if (!number_namesakes(m))
        return 0;
    if (m->frame_count && !a->nonzero) {
        m->zero_timings = 1;
        vp_warn(&m->warnings,
                "this capture holds no timings: every node time is 0 in all %u frames (the "
                "2013/TF2 recorder clears per-frame values before it writes them)",
                m->frame_count);
    }
    if (m->frame_count == 0 && a->status == PARSE_CLEAN)
        vp_warn(&m->warnings, "the capture has no frames");
    if (a->st.anomalies)
        vp_warn(&m->warnings,
                "%d escaped values are below their escape threshold (the writer should have "
                "used the short form); read as written",
                a->st.anomalies);
    m->escapes_seen = a->st.escapes > 0;
    return 1;
}

static vp_errcode open_map(vp_map *map, const vp_open_opts *opts, vp_vprof **out, vp_error *err)
{
    *out = NULL;
    int forced = opts ? opts->escape_width : 0;
    if (forced != 0 && forced != 4 && forced != 8)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "escape width must be 4 or 8, not %d", forced);

    attempt a = {.m = model_new()}, b = {0};
    if (!a.m)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    attempt_run(&a, map, forced ? forced : 4, opts);
    /* The escape field is a C `unsigned long`: 4 bytes on Windows and 32-bit
     * builds, 8 on 64-bit Linux/macOS. Width 4 is tried first; when the
     * stream stops making sense after an escape, width 8 is tried too and
     * the reading that makes more sense wins. */
    if (!forced && a.st.escapes && (a.status != PARSE_CLEAN || a.st.anomalies)) {
        b.m = model_new();
        if (!b.m) {
            vp_vprof_free(a.m);
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
        }
        attempt_run(&b, map, 8, opts);
        if (attempt_better(&b, &a)) {
            attempt t = a;
            a = b;
            b = t;
        }
        vp_vprof_free(b.m);
    }
    if (a.status == PARSE_ERROR) {
        *err = a.err;
        vp_vprof_free(a.m);
        return err->code;
    }
    vp_vprof *m = a.m;
    if (a.status == PARSE_TRUNC) {
        if (m->frame_count == 0) {
            vp_fail(err, VP_ETRUNC, UINT64_MAX, "%s; no frame is complete", a.trunc_msg);
            vp_vprof_free(m);
            return VP_ETRUNC;
        }
        m->truncated = 1;
        vp_warn(&m->warnings, "truncated %s; the %u complete frames before it are kept",
                a.trunc_msg, m->frame_count);
    }
    if (!finalize(m, &a)) {
        vp_vprof_free(m);
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    }
    m->map = *map;
    *out = m;
    return VP_OK;
}

vp_errcode vp_vprof_open(const char *path, const vp_open_opts *opts, vp_vprof **out,
                         vp_error *err)
{
    vp_map map;
    *out = NULL;
    vp_errcode rc = vp_map_open(&map, path, err);
    if (rc != VP_OK)
        return rc;
    rc = open_map(&map, opts, out, err);
    if (rc != VP_OK)
        vp_map_close(&map);
    return rc;
}

vp_errcode vp_vprof_open_mem(const void *buf, size_t n, const vp_open_opts *opts,
                             vp_vprof **out, vp_error *err)
{
    vp_map map;
    vp_map_wrap(&map, buf, n);
    return open_map(&map, opts, out, err);
}

/* ---- paths ------------------------------------------------------------- */

/* A node's path component: its name, plus "#k" for a later namesake. */
static size_t label(const vp_vprof *m, uint32_t v, char *buf, size_t cap)
{
    const char *nm = m->names + m->nodes[v].name;
    int n = m->nodes[v].dup ? snprintf(buf, cap, "%s#%u", nm, m->nodes[v].dup)
                            : snprintf(buf, cap, "%s", nm);
    return n < 0 ? 0 : (size_t)n;
}

size_t vp_vprof_node_path(const vp_vprof *m, uint32_t node, char *buf, size_t cap)
{
    /* Measure first, then fill from the end, so no recursion is needed. */
    size_t total = 0;
    char tmp[16];
    for (uint32_t v = node; v != VP_VPROF_NO_NODE; v = m->nodes[v].parent)
        total += label(m, v, tmp, 0) + (v == node ? 0 : 1);
    if (cap) {
        size_t end = total < cap - 1 ? total : cap - 1;
        buf[end] = 0;
        size_t pos = total;
        for (uint32_t v = node; v != VP_VPROF_NO_NODE; v = m->nodes[v].parent) {
            if (v != node) {
                pos--;
                if (pos < end)
                    buf[pos] = '/';
            }
            const char *nm = m->names + m->nodes[v].name;
            size_t nl = strlen(nm);
            char suffix[16] = "";
            if (m->nodes[v].dup)
                snprintf(suffix, sizeof suffix, "#%u", m->nodes[v].dup);
            size_t sl = strlen(suffix);
            pos -= nl + sl;
            for (size_t i = 0; i < nl + sl; i++)
                if (pos + i < end)
                    buf[pos + i] = i < nl ? nm[i] : suffix[i - nl];
        }
    }
    return total;
}

static int label_is_prefix(const vp_vprof *m, uint32_t v, const char *s, size_t len, size_t *used)
{
    const char *nm = m->names + m->nodes[v].name;
    size_t nl = strlen(nm);
    if (nl > len || memcmp(nm, s, nl) != 0)
        return 0;
    if (m->nodes[v].dup) {
        char suffix[16];
        int sl = snprintf(suffix, sizeof suffix, "#%u", m->nodes[v].dup);
        if (nl + (size_t)sl > len || memcmp(s + nl, suffix, (size_t)sl) != 0)
            return 0;
        nl += (size_t)sl;
    }
    if (nl != len && s[nl] != '/')
        return 0;
    *used = nl;
    return 1;
}

uint32_t vp_vprof_node_by_path(const vp_vprof *m, const char *path, size_t len)
{
    size_t used;
    size_t start = 0;
    if (label_is_prefix(m, 0, path, len, &used)) {
        if (used == len)
            return 0;
        start = used + 1;
    }
    /* Names may contain '/', so a component can match more than one child:
     * search depth-first with an explicit stack of (child, offset). */
    enum { MAXSTACK = 256 };
    struct {
        uint32_t child;
        size_t off;
    } stack[MAXSTACK];
    int sp = 0;
    stack[sp].child = m->nodes[0].first_child;
    stack[sp].off = start;
    sp++;
    while (sp > 0) {
        uint32_t c = stack[sp - 1].child;
        size_t off = stack[sp - 1].off;
        if (c == VP_VPROF_NO_NODE) {
            sp--;
            continue;
        }
        stack[sp - 1].child = m->nodes[c].next_sibling;
        if (!label_is_prefix(m, c, path + off, len - off, &used))
            continue;
        if (off + used == len)
            return c;
        if (sp < MAXSTACK) {
            stack[sp].child = m->nodes[c].first_child;
            stack[sp].off = off + used + 1;
            sp++;
        }
    }
    return VP_VPROF_NO_NODE;
}

/* ---- decoding frames again ---------------------------------------------- */

/* Position the cursor at the first timing record of frame fi. */
static vp_errcode frame_seek_timings(const vp_vprof *m, uint32_t fi, vp_cursor *c, vp_error *err)
{
    uint64_t off = m->frame_off[fi];
    vp_cursor_init(c, m->map.data + off, (size_t)(m->map.size - off), off);
    uint8_t tok;
    if (!vp_rd_u8(c, &tok) || tok != TOK_START_FRAME || !vp_skip(c, 4))
        return vp_fail(err, VP_EFORMAT, off, "frame %u no longer starts here (file changed?)",
                       fi + 1);
    for (;;) {
        const char *s;
        size_t len;
        if (!vp_rd_u8(c, &tok))
            break;
        if (tok == TOK_TIMINGS)
            return VP_OK;
        if (tok == TOK_ADD_GROUP && vp_rd_cstr(c, &s, &len) && vp_skip(c, 4))
            continue;
        if (tok == TOK_ADD_NODE && vp_skip(c, 4) && vp_rd_cstr(c, &s, &len) && vp_skip(c, 8))
            continue;
        break;
    }
    return vp_fail(err, VP_EFORMAT, vp_cursor_off(c),
                   "frame %u cannot be read again (file changed since it was opened?)", fi + 1);
}

size_t vp_vprof_fdata_size(uint32_t n)
{
    return (size_t)n * (2 * sizeof(uint64_t) + sizeof(uint32_t));
}

void vp_vprof_fdata_init(vp_vprof_fdata *fd, uint32_t n, void *mem)
{
    fd->n = n;
    fd->units = mem;
    fd->self = fd->units + n;
    fd->calls = (uint32_t *)(fd->self + n);
}

vp_errcode vp_vprof_frame_read(vp_vprof *m, uint32_t fi, vp_vprof_fdata *fd, vp_error *err)
{
    if (fi >= m->frame_count || fd->n != m->frame_nodes[fi])
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "no frame %u", fi + 1);
    vp_cursor c;
    vp_errcode rc = frame_seek_timings(m, fi, &c, err);
    if (rc != VP_OK)
        return rc;
    uint32_t n = fd->n;
    const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, n);
    if (!ep)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    /* Decode in position order, with fd->self as scratch (it is computed
     * last), then scatter units and calls to node-index order. */
    decode_stats st = {0};
    const uint8_t *start = c.p;
    if (timings_decode(&c.p, c.end, n, m->escape_width, fd->self, fd->calls, &st) < n)
        return vp_fail(err, VP_EFORMAT, vp_cursor_off(&c), "frame %u cannot be read again",
                       fi + 1);
    vp_map_note_random(&m->map, (uint64_t)(c.p - start));
    for (uint32_t pos = 0; pos < n; pos++)
        fd->units[ep->order[pos]] = fd->self[pos];
    for (uint32_t pos = 0; pos < n; pos++)
        fd->self[pos] = fd->calls[pos];
    for (uint32_t pos = 0; pos < n; pos++)
        fd->calls[ep->order[pos]] = (uint32_t)fd->self[pos];
    /* Self by node index. */
    memset(fd->self, 0, (size_t)n * sizeof *fd->self);
    for (uint32_t v = 1; v < n; v++)
        fd->self[m->nodes[v].parent] += fd->units[v];
    for (uint32_t v = 0; v < n; v++)
        fd->self[v] = fd->units[v] > fd->self[v] ? fd->units[v] - fd->self[v] : 0;
    return VP_OK;
}

vp_errcode vp_vprof_pass(vp_vprof *m, uint32_t first, uint32_t last, vp_vprof_pass_fn fn,
                         void *ud, vp_error *err)
{
    if (!m->frame_count || first > last || last >= m->frame_count)
        return VP_OK;
    scratch s = {0};
    vp_errcode rc = VP_OK;
    uint64_t next_release = m->frame_off[first] + VP_MAP_RELEASE_STEP;
    for (uint32_t fi = first; fi <= last; fi++) {
        uint32_t n = m->frame_nodes[fi];
        const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, n);
        if (!ep || !scratch_fit(&s, n, 0)) {
            rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
            break;
        }
        vp_cursor c;
        if ((rc = frame_seek_timings(m, fi, &c, err)) != VP_OK)
            break;
        decode_stats st = {0};
        if (timings_decode(&c.p, c.end, n, m->escape_width, s.units, s.calls, &st) < n) {
            rc = vp_fail(err, VP_EFORMAT, vp_cursor_off(&c), "frame %u cannot be read again",
                         fi + 1);
            break;
        }
        self_by_pos(ep, s.units, s.self);
        if (fn(ud, fi, ep, s.units, s.self, s.calls))
            break;
        if (vp_cursor_off(&c) >= next_release) {
            vp_map_release(&m->map, vp_cursor_off(&c));
            next_release = vp_cursor_off(&c) + VP_MAP_RELEASE_STEP;
        }
    }
    vp_map_release(&m->map, m->map.size);
    scratch_free(&s);
    return rc;
}
