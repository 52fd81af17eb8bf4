/* Node paths: "Root/A/B", with "#k" on the k-th of same-named siblings;
 * building one for a node and finding the node for one. */
#include <stdio.h>
#include <string.h>

#include "formats/vprof_int.h"

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
