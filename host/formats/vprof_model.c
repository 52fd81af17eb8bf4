/* The VProf model: the id -> index maps, the names, the budget groups and
 * the epochs (the tree's pre-order at a node count); freeing it all. The
 * open pass (vprof_open.c) fills it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "formats/vprof_int.h"

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
            vp_vprof_idmap_put(&n, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = n;
    return 1;
}

/* Insert or overwrite; 0 on OOM. */
int vp_vprof_idmap_put(vp_idmap *m, int32_t k, uint32_t v)
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

void vp_vprof_idmap_clear(vp_idmap *m)
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

int vp_vprof_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
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

uint32_t vp_vprof_names_add(vp_vprof *m, const char *s, size_t len)
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

vp_vprof *vp_vprof_model_new(void)
{
    vp_vprof *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->src.fd = -1;
    m->node_ids = calloc(1, sizeof *m->node_ids);
    m->group_ids = calloc(1, sizeof *m->group_ids);
    if (!m->node_ids || !m->group_ids) {
        vp_vprof_model_free(m);
        return NULL;
    }
    m->escape_width = 4;
    return m;
}

/* The model's own memory: what the statistics and the hitches' causes keep
 * in it is theirs to free first (vp_vprof_free, vprof_open.c). */
void vp_vprof_model_free(vp_vprof *m)
{
    if (!m)
        return;
    vp_src_close(&m->src);
    free(m->nodes);
    free(m->groups);
    free(m->names);
    vp_big_free(m->frames, (size_t)m->frame_cap * sizeof *m->frames);
    vp_series_unref(m->frame_ms);
    vp_stream_free(&m->frame_stream);
    free(m->path_rank);
    vp_warnings_free(&m->warnings);
    idmap_free(m->node_ids);
    idmap_free(m->group_ids);
    vp_vprof_epoch_reset(m);
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

uint32_t vp_vprof_group_add(vp_vprof *m, int32_t id, const char *name, size_t len, int32_t flags,
                            int declared)
{
    if (!vp_vprof_grow((void **)&m->groups, &m->group_cap, m->group_count + 1, sizeof *m->groups))
        return VP_VPROF_NO_NODE;
    uint32_t name_off = vp_vprof_names_add(m, name, len);
    if (name_off == UINT32_MAX)
        return VP_VPROF_NO_NODE;
    uint32_t gi = m->group_count;
    if (!vp_vprof_idmap_put(m->group_ids, id, gi))
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
uint32_t vp_vprof_group_resolve(vp_vprof *m, int32_t id, int warn, uint64_t off)
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
        return vp_vprof_group_add(m, id, default_groups[id].name, strlen(default_groups[id].name),
                                  default_groups[id].flags, 0);
    }
    char name[32];
    int len = snprintf(name, sizeof name, "group#%d", (int)id);
    if (warn)
        vp_warn(&m->warnings, "at byte %llu: budget group id %d is never declared; calling it '%s'",
                (unsigned long long)off, (int)id, name);
    return vp_vprof_group_add(m, id, name, (size_t)len, 0, 0);
}

int vp_vprof_groups_add_defaults(vp_vprof *m)
{
    for (int32_t i = 0; i < VP_VPROF_DEFAULT_GROUPS; i++)
        if (vp_vprof_group_by_id(m, i) == VP_VPROF_NO_NODE &&
            vp_vprof_group_add(m, i, default_groups[i].name, strlen(default_groups[i].name),
                               default_groups[i].flags, 0) == VP_VPROF_NO_NODE)
            return 0;
    return 1;
}

void vp_vprof_node_set_vis(vp_vprof *m, uint32_t v)
{
    vp_vprof_node *nd = &m->nodes[v];
    /* A node whose own group is visible counts there; else where its parent
     * counts, unless no ancestor's group is visible either (the parent then
     * counts in its own hidden group), when it keeps its own group. */
    nd->vis = nd->group;
    if (nd->group == VP_VPROF_NO_NODE || !(m->groups[nd->group].flags & VP_BUDGETFLAG_HIDDEN) ||
        nd->parent == VP_VPROF_NO_NODE)
        return;
    const vp_vprof_node *p = &m->nodes[nd->parent];
    if (p->vis != VP_VPROF_NO_NODE && !(m->groups[p->vis].flags & VP_BUDGETFLAG_HIDDEN))
        nd->vis = p->vis;
}

/* ---- epochs ------------------------------------------------------------ */

/* c, or the first of its later siblings, that is one of the first n nodes
 * (VP_VPROF_NO_NODE: none is): how the epoch walk below skips the nodes
 * not added yet. */
static uint32_t first_added(const vp_vprof *m, uint32_t c, uint32_t n)
{
    while (c != VP_VPROF_NO_NODE && c >= n)
        c = m->nodes[c].next_sibling;
    return c;
}

void vp_vprof_epoch_reset(vp_vprof *m)
{
    vp_vprof_epoch *ep = &m->epoch;
    free(ep->order);
    free(ep->parent_pos);
    free(ep->group);
    free(ep->vis);
    free(ep->inner);
    free(ep->kid_start);
    free(ep->kids);
    memset(ep, 0, sizeof *ep);
}

const vp_vprof_epoch *vp_vprof_epoch_for(vp_vprof *m, uint32_t n)
{
    vp_vprof_epoch *ep = &m->epoch;
    if (ep->order && ep->n == n)
        return ep;
    ep->n = 0;
#define FIT(field)                                                           \
    do {                                                                     \
        uint32_t *p_ = realloc(ep->field, ((size_t)n + 1) * sizeof *p_);     \
        if (!p_)                                                             \
            return NULL;                                                     \
        ep->field = p_;                                                      \
    } while (0)
    FIT(order);
    FIT(parent_pos);
    FIT(group);
    FIT(vis);
    FIT(inner);
    FIT(kid_start);
    FIT(kids);
#undef FIT
    uint32_t *order = ep->order, *pp = ep->parent_pos, *grp = ep->group, *vis = ep->vis;
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
        uint32_t c = first_added(m, m->nodes[v].first_child, n);
        if (c != VP_VPROF_NO_NODE) {
            v = c;
            continue;
        }
        while (v != 0) {
            uint32_t s = first_added(m, m->nodes[v].next_sibling, n);
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
    for (uint32_t i = 0; i < n; i++) {
        grp[i] = m->nodes[order[i]].group;
        vis[i] = m->nodes[order[i]].vis;
    }
    /* Children by position: count them, number the inner nodes, then put
     * each child in its parent's run of kids[], in pre-order. */
    uint32_t *next = calloc((size_t)n + 1, sizeof *next);
    if (!next)
        return NULL;
    for (uint32_t i = 1; i < n; i++)
        next[pp[i]]++;
    uint32_t k = 0, at = 0;
    for (uint32_t i = 0; i < n; i++)
        if (next[i]) {
            uint32_t c = next[i];
            ep->inner[k] = i;
            ep->kid_start[k++] = at;
            next[i] = at;
            at += c;
        }
    ep->kid_start[k] = at;
    ep->n_inner = k;
    for (uint32_t i = 1; i < n; i++)
        ep->kids[next[pp[i]]++] = i;
    free(next);
    ep->n = pos;
    return ep;
}
