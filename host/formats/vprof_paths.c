/* Node paths: "Root/A/B", with "#k" on the k-th of same-named siblings.
 * Paths are unique by construction: in a path component a name's '/', '#'
 * and '\' are written "\/", "\#" and "\\", and a leading "…" (which
 * starts the elision marker below) "\…", so '/' only ever separates
 * components, "#k" only ever numbers a namesake, and no name reads as a
 * marker.
 *
 * A path is as long as the node is deep, so nothing that works on every
 * node builds full paths: a 100,000-deep chain would make 5 * 10^9 bytes of
 * them. Listings show each node's path elided in the middle past
 * VP_VPROF_PATH_MAX bytes (its first components, the node's id, its last
 * components: bounded work per node, unique because ids are); rows sorted
 * "by path" use the path order, computed once per capture from the sorted
 * children of each node without building a path; finding a node by path
 * walks the tree along the path, with no stack and no limit on the depth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "formats/vprof_int.h"

#define MARK_OPEN "/\xE2\x80\xA6[id="   /* "/…[id=" */
#define MARK_CLOSE "]/"

#define ELLIPSIS "\xE2\x80\xA6"

/* What a name's label needs escaped: the bytes before which a '\' goes. */
static int needs_escape(const char *s, size_t i)
{
    return s[i] == '/' || s[i] == '#' || s[i] == '\\' || (i == 0 && strncmp(s, ELLIPSIS, 3) == 0);
}

int vprof_labels(vp_vprof *m)
{
    char *buf = NULL;
    size_t cap = 0;
    for (uint32_t v = 0; v < m->node_count; v++) {
        vp_vprof_node *nd = &m->nodes[v];
        const char *s = m->names + nd->name;
        size_t n = strlen(s), extra = 0;
        for (size_t i = 0; i < n; i++)
            extra += (size_t)needs_escape(s, i);
        nd->label = nd->name;
        if (!extra)
            continue;
        if (n + extra + 1 > cap) {
            char *p = realloc(buf, n + extra + 1);
            if (!p) {
                free(buf);
                return 0;
            }
            buf = p;
            cap = n + extra + 1;
        }
        size_t k = 0;
        s = m->names + nd->name;
        for (size_t i = 0; i < n; i++) {
            if (needs_escape(s, i))
                buf[k++] = '\\';
            buf[k++] = s[i];
        }
        uint32_t off = vp_vprof_names_add(m, buf, k); /* may move the pool: s is not used after */
        if (off == UINT32_MAX) {
            free(buf);
            return 0;
        }
        nd->label = off;
    }
    free(buf);
    return 1;
}

/* A node's path component: its label (the escaped name), plus "#k" for a
 * later namesake. */
typedef struct label {
    const char *name;
    size_t nlen;
    char suffix[16];
    size_t slen;
} label;

static void label_of(const vp_vprof *m, uint32_t v, label *l)
{
    l->name = m->names + m->nodes[v].label;
    l->nlen = strlen(l->name);
    l->slen = 0;
    l->suffix[0] = 0;
    if (m->nodes[v].dup) {
        int k = snprintf(l->suffix, sizeof l->suffix, "#%u", m->nodes[v].dup);
        l->slen = k > 0 ? (size_t)k : 0;
    }
}

/* Write the label's bytes ending just before buf[pos] (bytes at or past
 * `end` are dropped: the caller's buffer is full there); returns the new
 * pos. */
static size_t put_back(char *buf, size_t end, size_t pos, const char *s, size_t n)
{
    pos -= n;
    for (size_t i = 0; i < n; i++)
        if (pos + i < end)
            buf[pos + i] = s[i];
    return pos;
}

size_t vp_vprof_node_full_path(const vp_vprof *m, uint32_t node, char *buf, size_t cap)
{
    /* Measure first, then fill from the end, so no recursion is needed. */
    size_t total = 0;
    label l;
    for (uint32_t v = node; v != VP_VPROF_NO_NODE; v = m->nodes[v].parent) {
        label_of(m, v, &l);
        total += l.nlen + l.slen + (v == node ? 0 : 1);
    }
    if (cap) {
        size_t end = total < cap - 1 ? total : cap - 1;
        buf[end] = 0;
        size_t pos = total;
        for (uint32_t v = node; v != VP_VPROF_NO_NODE; v = m->nodes[v].parent) {
            if (v != node)
                pos = put_back(buf, end, pos, "/", 1);
            label_of(m, v, &l);
            pos = put_back(buf, end, pos, l.suffix, l.slen);
            pos = put_back(buf, end, pos, l.name, l.nlen);
        }
    }
    return total;
}

static size_t label_len(const vp_vprof *m, uint32_t v)
{
    label l;
    label_of(m, v, &l);
    return l.nlen + l.slen;
}

size_t vp_vprof_node_path(const vp_vprof *m, uint32_t node, char *buf, size_t cap)
{
    const vp_vprof_node *nd = &m->nodes[node];
    if (nd->path_len <= VP_VPROF_PATH_MAX)
        return vp_vprof_node_full_path(m, node, buf, cap);
    /* The tail: the node's own label and its ancestors' while they fit. */
    uint32_t t = node;
    size_t tail = label_len(m, node);
    while (m->nodes[t].parent != VP_VPROF_NO_NODE) {
        size_t add = label_len(m, m->nodes[t].parent) + 1;
        if (tail + add > VPROF_TAIL_MAX)
            break;
        tail += add;
        t = m->nodes[t].parent;
    }
    uint32_t above = m->nodes[t].parent; /* exists: the path is long */
    if (above == VP_VPROF_NO_NODE || m->nodes[above].path_len <= VPROF_HEAD_MAX)
        /* Nothing between the head and the tail: the full path is short
         * enough to write (the node's own name is the long part). */
        return vp_vprof_node_full_path(m, node, buf, cap);
    uint32_t h = nd->head;
    char mark[48];
    int ml = snprintf(mark, sizeof mark, MARK_OPEN "%d" MARK_CLOSE, (int)nd->id);
    size_t hl = m->nodes[h].path_len;
    size_t total = hl + (size_t)ml + tail;
    if (cap) {
        size_t end = total < cap - 1 ? total : cap - 1;
        buf[end] = 0;
        size_t pos = total;
        label l;
        for (uint32_t v = node;; v = m->nodes[v].parent) {
            label_of(m, v, &l);
            pos = put_back(buf, end, pos, l.suffix, l.slen);
            pos = put_back(buf, end, pos, l.name, l.nlen);
            if (v == t)
                break;
            pos = put_back(buf, end, pos, "/", 1);
        }
        pos = put_back(buf, end, pos, mark, (size_t)ml);
        /* The head, through a small buffer: it is at most VPROF_HEAD_MAX bytes. */
        char head[VPROF_HEAD_MAX + 1];
        vp_vprof_node_full_path(m, h, head, sizeof head);
        put_back(buf, end, pos, head, hl);
    }
    return total;
}

/* ---- finding a node by its path ------------------------------------------------ */

/* Whether v's label starts s (and is followed by '/' or the end); *used
 * receives its length. */
static int label_is_prefix(const vp_vprof *m, uint32_t v, const char *s, size_t len, size_t *used)
{
    label l;
    label_of(m, v, &l);
    size_t n = l.nlen + l.slen;
    if (n > len || memcmp(l.name, s, l.nlen) != 0 || memcmp(l.suffix, s + l.nlen, l.slen) != 0)
        return 0;
    if (n != len && s[n] != '/')
        return 0;
    *used = n;
    return 1;
}

/* The node at a full or root-relative path. Labels are unique among
 * siblings and never hold an unescaped '/', so one child at most matches
 * a component; the walk is a depth-first search all the same, whose
 * position (a node and the offset of its label in the path) is all the
 * state it needs, since the offset of a parent's label follows from its
 * child's. */
static uint32_t by_full_path(const vp_vprof *m, const char *path, size_t len)
{
    size_t used, off = 0;
    if (label_is_prefix(m, 0, path, len, &used)) {
        if (used == len)
            return 0;
        off = used + 1;
    }
    uint32_t c = m->nodes[0].first_child;
    while (c != VP_VPROF_NO_NODE) {
        if (label_is_prefix(m, c, path + off, len - off, &used)) {
            if (off + used == len)
                return c;
            if (m->nodes[c].first_child != VP_VPROF_NO_NODE) {
                off += used + 1;
                c = m->nodes[c].first_child;
                continue;
            }
        }
        /* Next sibling, or back up to the nearest ancestor that has one. */
        while (m->nodes[c].next_sibling == VP_VPROF_NO_NODE) {
            c = m->nodes[c].parent;
            if (c == 0)
                return VP_VPROF_NO_NODE;
            off -= label_len(m, c) + 1;
        }
        c = m->nodes[c].next_sibling;
    }
    return VP_VPROF_NO_NODE;
}

/* The node whose elided path (vp_vprof_node_path) this is. The marker
 * follows the head, at most VPROF_HEAD_MAX bytes in. */
static uint32_t by_elided_path(const vp_vprof *m, const char *path, size_t len)
{
    size_t ol = strlen(MARK_OPEN);
    for (size_t at = 0; at <= VPROF_HEAD_MAX && at + ol < len; at++) {
        if (memcmp(path + at, MARK_OPEN, ol) != 0)
            continue;
        size_t i = at + ol;
        long long id = 0;
        int neg = i < len && path[i] == '-', digits = 0;
        i += (size_t)neg;
        while (i < len && path[i] >= '0' && path[i] <= '9' && digits < 12) {
            id = id * 10 + (path[i++] - '0');
            digits++;
        }
        if (!digits || (neg ? -id : id) < INT32_MIN || id > INT32_MAX)
            continue;
        uint32_t v = vp_vprof_node_by_id(m, (int32_t)(neg ? -id : id));
        if (v == VP_VPROF_NO_NODE || vp_vprof_node_path(m, v, NULL, 0) != len)
            continue;
        char *buf = malloc(len + 1);
        if (!buf)
            return VP_VPROF_NO_NODE;
        vp_vprof_node_path(m, v, buf, len + 1);
        int same = memcmp(buf, path, len) == 0;
        free(buf);
        if (same)
            return v;
    }
    return VP_VPROF_NO_NODE;
}

uint32_t vp_vprof_node_by_path(const vp_vprof *m, const char *path, size_t len)
{
    uint32_t v = by_full_path(m, path, len);
    return v != VP_VPROF_NO_NODE ? v : by_elided_path(m, path, len);
}

/* ---- the path order ------------------------------------------------------------------ */

/* The byte order of full paths, without building them. Below a node p,
 * every path is path(p) followed by "/" + a child's label, and the paths
 * of a child's proper descendants all start path(p) "/" label(c) "/": a
 * block of consecutive paths. So the order below p is that of the keys
 * label(c) (the child itself) and label(c) "/" (its descendants' block),
 * sorted as strings, each block expanded in turn. (Not simply the children
 * sorted by label: "A" < "A-B" < "A/x", since '-' sorts before '/'.) */
typedef struct order_ctx {
    const vp_vprof *m;
} order_ctx;

/* A key: child index * 2, + 1 for its descendants' block. */
static int cmp_key(uint32_t a, uint32_t b, const void *ctx)
{
    const vp_vprof *m = ((const order_ctx *)ctx)->m;
    label la, lb;
    label_of(m, a >> 1, &la);
    label_of(m, b >> 1, &lb);
    /* Compare name + suffix + ("/" when a block) byte by byte. */
    const char *pa[3] = {la.name, la.suffix, "/"}, *pb[3] = {lb.name, lb.suffix, "/"};
    size_t na[3] = {la.nlen, la.slen, a & 1}, nb[3] = {lb.nlen, lb.slen, b & 1};
    int ia = 0, ib = 0;
    size_t ja = 0, jb = 0;
    for (;;) {
        while (ia < 3 && ja == na[ia]) {
            ia++;
            ja = 0;
        }
        while (ib < 3 && jb == nb[ib]) {
            ib++;
            jb = 0;
        }
        if (ia == 3 || ib == 3)
            break;
        unsigned char x = (unsigned char)pa[ia][ja++], y = (unsigned char)pb[ib][jb++];
        if (x != y)
            return x < y ? -1 : 1;
    }
    if (ia == 3 && ib == 3)
        return a < b ? -1 : a > b; /* the same label: the same node */
    return ia == 3 ? -1 : 1;       /* a prefix sorts first */
}

const uint32_t *vp_vprof_path_order(vp_vprof *m)
{
    if (m->path_rank)
        return m->path_rank;
    uint32_t n = m->node_count;
    if (n > INT32_MAX)
        return NULL;
    /* Keys grouped by parent: start[p] .. start[p + 1]. */
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *keys = malloc((size_t)n * 2 * sizeof *keys + 1);
    uint32_t *rank = malloc((size_t)n * sizeof *rank + 1);
    uint32_t *stack = malloc((size_t)n * 2 * sizeof *stack + 1);
    if (!start || !keys || !rank || !stack)
        goto oom;
    for (uint32_t v = 1; v < n; v++)
        start[m->nodes[v].parent] += 1 + (m->nodes[v].first_child != VP_VPROF_NO_NODE);
    uint32_t acc = 0;
    for (uint32_t p = 0; p <= n; p++) {
        uint32_t c = p < n ? start[p] : 0;
        start[p] = acc;
        acc += c;
    }
    /* start[p] now points at p's first key; fill, moving it on. */
    for (uint32_t v = 1; v < n; v++) {
        uint32_t p = m->nodes[v].parent;
        keys[start[p]++] = v << 1;
        if (m->nodes[v].first_child != VP_VPROF_NO_NODE)
            keys[start[p]++] = v << 1 | 1;
    }
    for (uint32_t p = n; p-- > 0;) /* back to each parent's first key */
        start[p + 1] = start[p];
    start[0] = 0;
    order_ctx ctx = {m};
    for (uint32_t p = 0; p < n; p++)
        vp_sort_idx(keys + start[p], start[p + 1] - start[p], cmp_key, &ctx);
    /* Expand: a stack of (node whose keys are being read, next key). */
    uint32_t next = 0, sp = 0;
    rank[0] = next++;
    stack[sp++] = 0;
    stack[sp++] = start[0];
    while (sp) {
        uint32_t p = stack[sp - 2], k = stack[sp - 1];
        if (k == start[p + 1]) {
            sp -= 2;
            continue;
        }
        stack[sp - 1] = k + 1;
        uint32_t key = keys[k], v = key >> 1;
        if (!(key & 1)) {
            rank[v] = next++;
        } else {
            stack[sp++] = v;
            stack[sp++] = start[v];
        }
    }
    free(start);
    free(keys);
    free(stack);
    m->path_rank = rank;
    return rank;
oom:
    free(start);
    free(keys);
    free(rank);
    free(stack);
    return NULL;
}

/* ---- finding nodes: pre-order, names, globs ------------------------------------ */

uint32_t vp_vprof_preorder_next(const vp_vprof *m, uint32_t v)
{
    if (m->nodes[v].first_child != VP_VPROF_NO_NODE)
        return m->nodes[v].first_child;
    for (uint32_t u = v; u != VP_VPROF_NO_NODE && u != 0; u = m->nodes[u].parent)
        if (m->nodes[u].next_sibling != VP_VPROF_NO_NODE)
            return m->nodes[u].next_sibling;
    return VP_VPROF_NO_NODE;
}

size_t vp_vprof_node_label(const vp_vprof *m, uint32_t node, char *buf, size_t cap)
{
    label l;
    label_of(m, node, &l);
    if (cap) {
        size_t end = l.nlen + l.slen < cap - 1 ? l.nlen + l.slen : cap - 1;
        size_t pos = put_back(buf, end, l.nlen + l.slen, l.suffix, l.slen);
        put_back(buf, end, pos, l.name, l.nlen);
        buf[end] = 0;
    }
    return l.nlen + l.slen;
}

/* A glob compiled to tokens; matched as an NFA over the tokens (one pass
 * over the string, work bounded by its length x the glob's, whatever the
 * stars). */
enum { G_LIT, G_ONE, G_STAR, G_DSTAR, G_CLASS };
typedef struct gtok {
    unsigned char kind, c, neg;
    uint32_t at, len; /* G_CLASS: its body in the glob */
} gtok;

typedef struct glob {
    const char *src;
    gtok *t;
    uint32_t n;
    unsigned char *mem;        /* the two state sets */
    unsigned char *cur, *next; /* n + 1 states each, in mem */
} glob;

/* Where the class opened at glob[i] ('[') ends (its ']'), or 0 when it is
 * not closed. The body starts after an optional '!' and is never empty, so
 * a ']' right there belongs to it ("[]]", "[!]]"). */
static size_t class_end(const char *g, size_t len, size_t i)
{
    size_t b = i + 1 + (i + 1 < len && g[i + 1] == '!');
    for (size_t k = b + 1; k < len; k++)
        if (g[k] == ']')
            return k;
    return 0;
}

long vp_vprof_glob_error(const char *g, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (g[i] == '\\' && i + 1 < len) {
            i++;
        } else if (g[i] == '[') {
            size_t e = class_end(g, len, i);
            if (!e)
                return (long)i;
            i = e;
        }
    }
    return -1;
}

static void glob_free(glob *gl)
{
    free(gl->t);
    free(gl->mem);
}

/* Compile a well-formed glob (vp_vprof_glob_error < 0); 0 on OOM. */
static int glob_compile(glob *gl, const char *g, size_t len)
{
    memset(gl, 0, sizeof *gl);
    gl->src = g;
    gl->t = malloc((len + 1) * sizeof *gl->t);
    gl->mem = malloc(2 * (len + 2));
    if (!gl->t || !gl->mem) {
        glob_free(gl);
        return 0;
    }
    gl->cur = gl->mem;
    gl->next = gl->mem + len + 2;
    for (size_t i = 0; i < len; i++) {
        gtok *t = &gl->t[gl->n++];
        memset(t, 0, sizeof *t);
        if (g[i] == '*') {
            t->kind = G_STAR;
            if (i + 1 < len && g[i + 1] == '*') {
                t->kind = G_DSTAR;
                i++;
            }
        } else if (g[i] == '?') {
            t->kind = G_ONE;
        } else if (g[i] == '[') {
            size_t e = class_end(g, len, i);
            t->kind = G_CLASS;
            t->neg = g[i + 1] == '!';
            t->at = (uint32_t)(i + 1 + t->neg);
            t->len = (uint32_t)(e - t->at);
            i = e;
        } else {
            t->kind = G_LIT;
            if (g[i] == '\\' && i + 1 < len)
                i++;
            t->c = (unsigned char)g[i];
        }
    }
    return 1;
}

/* Whether byte c is in a class body: single bytes and ranges "a-z" (a '-'
 * first or last is itself). */
static int class_has(const unsigned char *b, uint32_t len, unsigned char c)
{
    for (uint32_t k = 0; k < len;) {
        if (k + 2 < len && b[k + 1] == '-') {
            if (c >= b[k] && c <= b[k + 2])
                return 1;
            k += 3;
        } else {
            if (c == b[k])
                return 1;
            k++;
        }
    }
    return 0;
}

/* Mark state s and those the stars let it skip to. */
static void glob_add(const glob *gl, unsigned char *set, uint32_t s)
{
    while (!set[s]) {
        set[s] = 1;
        if (s == gl->n || (gl->t[s].kind != G_STAR && gl->t[s].kind != G_DSTAR))
            break;
        s++;
    }
}

static int glob_match(glob *gl, const char *s, size_t len)
{
    uint32_t n = gl->n;
    memset(gl->cur, 0, n + 1);
    glob_add(gl, gl->cur, 0);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int any = 0;
        memset(gl->next, 0, n + 1);
        for (uint32_t k = 0; k < n; k++) {
            if (!gl->cur[k])
                continue;
            const gtok *t = &gl->t[k];
            switch (t->kind) {
            case G_LIT:
                if (c == t->c)
                    glob_add(gl, gl->next, k + 1), any = 1;
                break;
            case G_ONE:
                if (c != '/')
                    glob_add(gl, gl->next, k + 1), any = 1;
                break;
            case G_STAR:
                if (c != '/')
                    glob_add(gl, gl->next, k), any = 1;
                break;
            case G_DSTAR:
                glob_add(gl, gl->next, k), any = 1;
                break;
            default:
                if (class_has((const unsigned char *)gl->src + t->at, t->len, c) != t->neg)
                    glob_add(gl, gl->next, k + 1), any = 1;
                break;
            }
        }
        if (!any)
            return 0;
        unsigned char *x = gl->cur;
        gl->cur = gl->next;
        gl->next = x;
    }
    return gl->cur[n];
}

int vp_vprof_glob_match(const char *g, size_t glen, const char *s, size_t slen)
{
    if (vp_vprof_glob_error(g, glen) >= 0)
        return -1;
    glob gl;
    if (!glob_compile(&gl, g, glen))
        return -2;
    int r = glob_match(&gl, s, slen);
    glob_free(&gl);
    return r;
}

/* A list of node indices, grown as matches come. */
typedef struct hits {
    uint32_t *v;
    uint32_t n, cap;
} hits;

static int hits_add(hits *h, uint32_t v)
{
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 16;
        uint32_t *p = realloc(h->v, (size_t)cap * sizeof *p);
        if (!p)
            return 0;
        h->v = p;
        h->cap = cap;
    }
    h->v[h->n++] = v;
    return 1;
}

/* Grow *buf to hold need + 1 bytes. */
static int reserve(char **buf, size_t *cap, size_t need)
{
    if (need < *cap)
        return 1;
    char *p = realloc(*buf, need + 1);
    if (!p)
        return 0;
    *buf = p;
    *cap = need + 1;
    return 1;
}

vp_errcode vp_vprof_find(const vp_vprof *m, const char *g, size_t glen, int on_path, uint32_t **out,
                         uint32_t *count, vp_error *err)
{
    *out = NULL;
    *count = 0;
    long bad = vp_vprof_glob_error(g, glen);
    if (bad >= 0)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX,
                       "a character class '[' is not closed (at byte %ld of the pattern)", bad);
    glob gl;
    hits h = {0};
    char *buf = NULL;
    size_t cap = 0;
    if (!glob_compile(&gl, g, glen))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    size_t root = vp_vprof_node_label(m, 0, NULL, 0) + 1; /* "Root/" */
    int ok = 1;
    for (uint32_t v = 0; ok && v != VP_VPROF_NO_NODE; v = vp_vprof_preorder_next(m, v)) {
        int hit;
        if (on_path) {
            size_t len = vp_vprof_node_path(m, v, NULL, 0);
            if (!(ok = reserve(&buf, &cap, len)))
                break;
            vp_vprof_node_path(m, v, buf, cap);
            hit = glob_match(&gl, buf, len) || (v != 0 && glob_match(&gl, buf + root, len - root));
        } else {
            const char *name = vp_vprof_name(m, m->nodes[v].name);
            hit = glob_match(&gl, name, strlen(name));
            if (!hit && m->nodes[v].dup) {
                size_t len = vp_vprof_node_label(m, v, NULL, 0);
                if (!(ok = reserve(&buf, &cap, len)))
                    break;
                vp_vprof_node_label(m, v, buf, cap);
                hit = glob_match(&gl, buf, len);
            }
        }
        if (hit)
            ok = hits_add(&h, v);
    }
    free(buf);
    glob_free(&gl);
    if (!ok) {
        free(h.v);
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    }
    *out = h.v;
    *count = h.n;
    return VP_OK;
}

vp_errcode vp_vprof_nodes_named(const vp_vprof *m, const char *name, size_t len, uint32_t **out,
                                uint32_t *count, vp_error *err)
{
    hits h = {0};
    *out = NULL;
    *count = 0;
    for (uint32_t v = 0; v != VP_VPROF_NO_NODE; v = vp_vprof_preorder_next(m, v)) {
        const char *s = vp_vprof_name(m, m->nodes[v].name);
        if (strlen(s) == len && memcmp(s, name, len) == 0 && !hits_add(&h, v)) {
            free(h.v);
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
        }
    }
    *out = h.v;
    *count = h.n;
    return VP_OK;
}
