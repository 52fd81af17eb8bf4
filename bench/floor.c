/* floor: the least work any analysis of a .vprof file must do, as a
 * yardstick for `make bench`.
 *
 *   floor FILE [ESCAPE_WIDTH]          (escape width 4, the default, or 8)
 *   floor_groups FILE [ESCAPE_WIDTH]   (this file built with -DFLOOR_GROUPS=1)
 *
 * Reads the file front to back with read() into one reused buffer (the
 * fastest honest I/O: the page cache copied once, no page faults, nothing
 * kept), checks the header, walks the token stream (skipping AddNode and
 * AddBudgetGroup records, counting nodes so it knows how many timing
 * records follow), decodes every timing record and sums calls and time. It
 * keeps no tree, no index and no per-frame output: whatever a real reader
 * does beyond this is its overhead. Written from the spec like the other
 * tools, sharing no code with the reader.
 *
 * floor_groups adds the arithmetic budget.lua's question needs, done the plain
 * way: the tree kept (children prepended, as the spec says), each frame's
 * self times (time minus the children's, clamped at 0) added per budget
 * group, and each group's per-frame sum counted exactly (a count per value,
 * the first minimum and maximum). No frame index, names or output beyond
 * the totals: what any budget rollup must compute, so a real reader's
 * figure against it is the price of its model and its generality. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Two programs from this file, so that the plain floor's loop is compiled
 * without the other's work in it (its speed is sensitive to code layout). */
#ifndef FLOOR_GROUPS
#define FLOOR_GROUPS 0
#endif

/* Bytes per read(): the reader's window is the same size. */
#define CHUNK ((size_t)1 << 20)

typedef struct input {
    int fd, eof;
    uint8_t *buf;
    size_t cap, len, pos; /* buf[pos .. len) is unread */
    uint64_t base;        /* file offset of buf[0] */
} input;

static void floor_fail(uint64_t off, const char *what)
{
    fprintf(stderr, "floor: at byte %llu: %s\n", (unsigned long long)off, what);
    exit(2);
}

/* Keep the unread bytes, read until at least `want` are there (or the end). */
static void refill(input *in, size_t want)
{
    if (in->len > in->pos)
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
    in->base += in->pos;
    in->len -= in->pos;
    in->pos = 0;
    if (want + CHUNK > in->cap) {
        in->cap = want + CHUNK;
        in->buf = realloc(in->buf, in->cap);
        if (!in->buf) {
            fprintf(stderr, "floor: out of memory\n");
            exit(1);
        }
    }
    while (!in->eof && (in->len < want || in->len + CHUNK <= in->cap)) {
        ssize_t r = read(in->fd, in->buf + in->len, in->cap - in->len);
        if (r < 0) {
            perror("floor: read");
            exit(2);
        }
        if (r == 0)
            in->eof = 1;
        in->len += (size_t)r;
    }
}

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* floor_groups: the tree in the timing records' order (pre-order, children
 * newest first), rebuilt when a node is added, and per group the exact
 * counts of its per-frame self-time sums. */
typedef struct group_counts {
    uint32_t small[1024]; /* counts of the values 0..1023 */
    uint64_t *big;        /* the larger values, one per frame they occur in */
    size_t nbig, capbig;
    uint64_t min, max, argmin, argmax, n;
    int seen;
} group_counts;

typedef struct tree {
    uint32_t n, cap;
    int32_t *id, *group;
    int32_t (*pending)[3]; /* this frame's AddNode records: parent, group, id */
    uint32_t npending, cappending, capunits;
    uint32_t *parent, *first_kid, *next; /* by node index (0: the root) */
    uint32_t *pos_parent, *pos_group;    /* by position in the records */
    int dirty;
    uint64_t *units, *kids, *gsum;
    group_counts *g;
    uint32_t ngroups, *groups_seen, nseen;
} tree;

typedef struct totals {
    uint64_t frames, nodes, calls, units;
    tree *t;
} totals;

static void *grow(void *p, size_t n, size_t size)
{
    p = realloc(p, n * size);
    if (!p) {
        fprintf(stderr, "floor: out of memory\n");
        exit(1);
    }
    return p;
}

static uint32_t node_index(const tree *t, int32_t id, uint64_t off)
{
    for (uint32_t i = t->n; i-- > 0;) /* new nodes' parents are mostly recent */
        if (t->id[i] == id)
            return i;
    floor_fail(off, "AddNode names a parent that does not exist");
    return 0;
}

static void add_node(tree *t, int32_t parent_id, int32_t group, int32_t id, uint64_t off)
{
    if (group < 0 || group > 65535)
        floor_fail(off, "a budget group id outside 0..65535");
    uint32_t parent = node_index(t, parent_id, off);
    if (t->n == t->cap) {
        t->cap *= 2;
        t->id = grow(t->id, t->cap, sizeof *t->id);
        t->group = grow(t->group, t->cap, sizeof *t->group);
        t->parent = grow(t->parent, t->cap, sizeof *t->parent);
        t->first_kid = grow(t->first_kid, t->cap, sizeof *t->first_kid);
        t->next = grow(t->next, t->cap, sizeof *t->next);
    }
    uint32_t v = t->n++;
    t->id[v] = id;
    t->group[v] = group;
    t->parent[v] = parent;
    t->first_kid[v] = UINT32_MAX;
    t->next[v] = t->first_kid[parent]; /* prepended */
    t->first_kid[parent] = v;
    t->dirty = 1;
}

/* Positions in pre-order, each node's parent's position and its group. */
static void relayout(tree *t, uint64_t frames)
{
    uint32_t n = t->n, *stack = grow(NULL, n, sizeof *stack), *pos_of = grow(NULL, n, sizeof *pos_of);
    t->pos_parent = grow(t->pos_parent, n, sizeof *t->pos_parent);
    t->pos_group = grow(t->pos_group, n, sizeof *t->pos_group);
    t->kids = grow(t->kids, n, sizeof *t->kids);
    uint32_t top = 0, pos = 0;
    stack[top++] = 0;
    while (top) {
        uint32_t v = stack[--top];
        pos_of[v] = pos;
        t->pos_parent[pos] = v ? pos_of[t->parent[v]] : 0;
        uint32_t g = (uint32_t)t->group[v];
        if (g >= t->ngroups) {
            uint32_t ng = g + 1;
            t->g = grow(t->g, ng, sizeof *t->g);
            t->gsum = grow(t->gsum, ng, sizeof *t->gsum);
            memset(t->g + t->ngroups, 0, (ng - t->ngroups) * sizeof *t->g);
            memset(t->gsum + t->ngroups, 0, (ng - t->ngroups) * sizeof *t->gsum);
            t->groups_seen = grow(t->groups_seen, ng, sizeof *t->groups_seen);
            t->ngroups = ng;
        }
        if (!t->g[g].seen) { /* 0 in the frames before, a value in every one from now on */
            t->g[g].seen = 1;
            t->g[g].small[0] = (uint32_t)frames;
            t->g[g].n = frames; /* min, max: 0 in frame 1 */
            t->groups_seen[t->nseen++] = g;
        }
        t->pos_group[pos] = g;
        pos++;
        /* Children in list order: push them last first. */
        uint32_t k = 0;
        for (uint32_t c = t->first_kid[v]; c != UINT32_MAX; c = t->next[c])
            k++;
        uint32_t at = top + k;
        for (uint32_t c = t->first_kid[v]; c != UINT32_MAX; c = t->next[c])
            stack[--at] = c;
        top += k;
    }
    free(stack);
    free(pos_of);
    t->dirty = 0;
}

/* One frame's units[] (by position): self times per group, counted. */
static void group_frame(tree *t, uint32_t n, uint64_t frame)
{
    uint64_t *u = t->units, *kids = t->kids;
    memset(kids, 0, n * sizeof *kids);
    for (uint32_t pos = 1; pos < n; pos++)
        kids[t->pos_parent[pos]] += u[pos];
    for (uint32_t pos = 0; pos < n; pos++)
        t->gsum[t->pos_group[pos]] += u[pos] > kids[pos] ? u[pos] - kids[pos] : 0;
    for (uint32_t k = 0; k < t->nseen; k++) {
        uint32_t g = t->groups_seen[k];
        group_counts *c = &t->g[g];
        uint64_t v = t->gsum[g];
        t->gsum[g] = 0;
        if (v < 1024) {
            c->small[v]++;
        } else {
            if (c->nbig == c->capbig) {
                c->capbig = c->capbig ? c->capbig * 2 : 64;
                c->big = grow(c->big, c->capbig, sizeof *c->big);
            }
            c->big[c->nbig++] = v;
        }
        if (!c->n || v > c->max) {
            c->max = v;
            c->argmax = frame;
        }
        if (!c->n || v < c->min) {
            c->min = v;
            c->argmin = frame;
        }
        c->n++;
    }
}

/* One frame at p (end: the end of the bytes read): its size, with its
 * sums added to *t; 0 when the bytes end first (read more and retry);
 * exits on bytes that break the format. */
static size_t frame(const uint8_t *p, const uint8_t *end, uint64_t off, unsigned width, totals *t)
{
    tree *const grp = FLOOR_GROUPS ? t->t : NULL; /* NULL: the checks compile away */
    const uint8_t *start = p;
    uint64_t nodes = t->nodes, calls = 0, units = 0;
    if (grp)
        grp->npending = 0;
#define NEED(n) \
    if ((size_t)(end - p) < (size_t)(n)) \
        return 0
    NEED(5);
    if (*p != 0)
        floor_fail(off, "expected Token_StartFrame");
    p += 5;
    for (;;) {
        NEED(1);
        uint8_t tok = *p++;
        if (tok == 3) {
            if (grp && nodes > grp->capunits) {
                grp->capunits = (uint32_t)nodes;
                grp->units = grow(grp->units, nodes, sizeof *grp->units);
            }
            break;
        }
        if (tok == 1) {
            NEED(4);
            const uint8_t *rec = p;
            p += 4;
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            if (!z)
                return 0;
            p = z + 1;
            NEED(8);
            if (grp) { /* added when the frame is whole: a frame cut short is read again */
                if (grp->npending == grp->cappending) {
                    grp->cappending = grp->cappending ? grp->cappending * 2 : 16;
                    grp->pending = grow(grp->pending, grp->cappending, sizeof *grp->pending);
                }
                int32_t *x = grp->pending[grp->npending++];
                x[0] = (int32_t)rd32(rec);
                x[1] = (int32_t)rd32(p);
                x[2] = (int32_t)rd32(p + 4);
            }
            p += 8;
            nodes++;
        } else if (tok == 2) {
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            if (!z)
                return 0;
            p = z + 1;
            NEED(4);
            p += 4;
        } else {
            floor_fail(off + (uint64_t)(p - 1 - start), "expected AddNode, AddBudgetGroup or Timings");
        }
    }
    for (uint64_t i = 0; i < nodes; i++) {
        /* One timing record is at most 3 + 2 + 8 bytes: check once. */
        if ((size_t)(end - p) < 13) {
            size_t k;
            NEED(1);
            k = *p == 255 ? 3 : 1;
            NEED(k + 2);
            if (rd16(p + k) == 0xFFFF)
                NEED(k + 2 + width);
        }
        /* The escapes are the rare case: said so, gcc lays the common path
         * out straight (without the hint, 2.1 x slower on the wide bench
         * capture, whose calls are escaped for 15 % of the nodes). */
        uint32_t c = *p++;
        if (__builtin_expect(c == 255, 0)) {
            c = rd16(p);
            p += 2;
        }
        uint64_t u = rd16(p);
        p += 2;
        if (__builtin_expect(u == 0xFFFF, 0)) {
            u = width == 8 ? rd64(p) : rd32(p);
            p += width;
        }
        calls += c;
        units += u;
        if (grp)
            grp->units[i] = u;
    }
    NEED(1);
    if (*p != 4)
        floor_fail(off + (uint64_t)(p - start), "expected Token_EndOfFrame");
    p++;
#undef NEED
    if (grp) {
        for (uint32_t i = 0; i < grp->npending; i++)
            add_node(grp, grp->pending[i][0], grp->pending[i][1], grp->pending[i][2], off);
        if (grp->dirty)
            relayout(grp, t->frames);
        group_frame(grp, (uint32_t)nodes, t->frames);
    }
    t->frames++;
    t->nodes = nodes;
    t->calls += calls;
    t->units += units;
    return (size_t)(p - start);
}

int main(int argc, char **argv)
{
    const int groups = FLOOR_GROUPS;
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FILE [ESCAPE_WIDTH]\n", groups ? "floor_groups" : "floor");
        return 2;
    }
    const unsigned width = argc == 3 ? (unsigned)atoi(argv[2]) : 4;
    if (width != 4 && width != 8) {
        fprintf(stderr, "floor: escape width must be 4 or 8\n");
        return 2;
    }
    input in = {0};
    in.fd = open(argv[1], O_RDONLY);
    if (in.fd < 0) {
        perror(argv[1]);
        return 2;
    }
    refill(&in, 8);
    if (in.len < 8 || rd32(in.buf) != 1)
        floor_fail(0, "expected the header of version 1");
    in.pos = 8;
    totals t = {0, 1, 0, 0, NULL};
    tree tr = {0};
    if (groups) {
        tr.cap = 64;
        tr.id = grow(NULL, tr.cap, sizeof *tr.id);
        tr.group = grow(NULL, tr.cap, sizeof *tr.group);
        tr.parent = grow(NULL, tr.cap, sizeof *tr.parent);
        tr.first_kid = grow(NULL, tr.cap, sizeof *tr.first_kid);
        tr.next = grow(NULL, tr.cap, sizeof *tr.next);
        tr.n = 1; /* the root, declared by the header, in group 0 */
        tr.id[0] = (int32_t)rd32(in.buf + 4);
        tr.group[0] = 0;
        tr.parent[0] = 0;
        tr.first_kid[0] = tr.next[0] = UINT32_MAX;
        relayout(&tr, 0);
        t.t = &tr;
    }
    for (;;) {
        if (in.pos == in.len) {
            refill(&in, 1);
            if (in.len == 0)
                break;
        }
        size_t used = frame(in.buf + in.pos, in.buf + in.len, in.base + in.pos, width, &t);
        if (used) {
            in.pos += used;
            continue;
        }
        /* The frame runs past the bytes read: read more, or it is cut. */
        size_t have = in.len - in.pos;
        if (in.eof)
            floor_fail(in.base + in.len, "the file ends inside a frame");
        refill(&in, have * 2 + 64);
    }
    printf("floor: %llu frames, %llu nodes, %llu calls, %.3f s of node time\n",
           (unsigned long long)t.frames, (unsigned long long)t.nodes, (unsigned long long)t.calls,
           (double)t.units * 4 / 1e6);
    for (uint32_t k = 0; groups && k < tr.nseen; k++) {
        const group_counts *c = &tr.g[tr.groups_seen[k]];
        uint64_t sum = 0;
        for (uint64_t v = 1; v < 1024; v++)
            sum += v * c->small[v];
        for (size_t i = 0; i < c->nbig; i++)
            sum += c->big[i];
        printf("group %u: %llu frames, %.3f ms of self time, max %.3f ms in frame %llu\n",
               tr.groups_seen[k], (unsigned long long)c->n, (double)sum * 4 / 1e3,
               (double)c->max * 4 / 1e3, (unsigned long long)c->argmax + 1);
    }
    close(in.fd);
    free(in.buf);
    for (uint32_t g = 0; g < tr.ngroups; g++)
        free(tr.g[g].big);
    free(tr.g);
    free(tr.gsum);
    free(tr.groups_seen);
    free(tr.pending);
    free(tr.id);
    free(tr.group);
    free(tr.parent);
    free(tr.first_kid);
    free(tr.next);
    free(tr.pos_parent);
    free(tr.pos_group);
    free(tr.units);
    free(tr.kids);
    return 0;
}
