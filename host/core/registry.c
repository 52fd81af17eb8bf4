#include "core/registry.h"

#include <string.h>
#include <strings.h>

#include "core/source.h"

static int starts_with(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    return n >= k && memcmp(p, s, k) == 0;
}

/* Where the text of a laige report starts: after a UTF-8 byte order mark
 * and blank space. */
static size_t text_start(const uint8_t *head, size_t n)
{
    size_t i = starts_with(head, n, "\xEF\xBB\xBF") ? 3 : 0;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    return i;
}

/* VProf has no magic: version 1 followed by Token_StartFrame (or nothing,
 * for a capture with no frames). */
static int sniff_vprof(const uint8_t *head, size_t n, uint64_t size)
{
    return n >= 8 && head[0] == 1 && head[1] == 0 && head[2] == 0 && head[3] == 0 &&
                   (size == 8 || (n > 8 && head[8] == 0))
               ? VP_SNIFF_YES
               : VP_SNIFF_NO;
}

/* A laige JSON profile is an object whose top-level keys include "version"
 * and "counters", wherever they are: a report written with sorted keys has
 * "version" last, after every system. The scan below follows the JSON
 * structure (strings with their escapes, nesting) one byte at a time, so it
 * can be fed the file in pieces and stops as soon as it knows; it reads
 * keys only at the top level and checks nothing else (the reader does). */
enum {
    JK_START,  /* before the opening brace */
    JK_KEY,    /* expecting a key (or the closing brace) */
    JK_IN_KEY, /* inside a top-level key */
    JK_COLON,  /* after a key */
    JK_VALUE   /* inside a top-level value: skipping it */
};

typedef struct json_keys {
    int state;
    unsigned depth;       /* nesting inside the value being skipped */
    int in_str, escaped;  /* inside a string of that value; after a backslash */
    char key[12];         /* the first bytes of the key being read */
    size_t klen;
    int seen;             /* 1: "version", 2: "counters" */
} json_keys;

static int is_blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void json_key_done(json_keys *k)
{
    if (k->klen == 7 && memcmp(k->key, "version", 7) == 0)
        k->seen |= 1;
    else if (k->klen == 8 && memcmp(k->key, "counters", 8) == 0)
        k->seen |= 2;
}

/* One byte inside a string (after its opening quote): 1 when it is the
 * closing quote. An escape sets k->escaped for the byte after it. */
static int json_string_byte(json_keys *k, uint8_t c)
{
    if (k->escaped) {
        k->escaped = 0;
        return 0;
    }
    if (c == '\\')
        k->escaped = 1;
    return c == '"';
}

/* Feed n more bytes; a VP_SNIFF_ value (MORE: feed the rest). */
static int json_keys_feed(json_keys *k, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        switch (k->state) {
        case JK_START:
            if (is_blank(c))
                break;
            if (c != '{')
                return VP_SNIFF_NO;
            k->state = JK_KEY;
            break;
        case JK_KEY:
            if (is_blank(c) || c == ',')
                break;
            if (c != '"')
                return VP_SNIFF_NO; /* the object ended, or it is not JSON */
            k->state = JK_IN_KEY;
            k->klen = 0;
            k->escaped = 0;
            break;
        case JK_IN_KEY:
            if (k->escaped || c == '\\') {
                k->klen = sizeof k->key; /* an escaped key is none of ours */
                json_string_byte(k, c);
            } else if (json_string_byte(k, c)) {
                json_key_done(k);
                if (k->seen == 3)
                    return VP_SNIFF_YES;
                k->state = JK_COLON;
            } else if (k->klen < sizeof k->key) {
                k->key[k->klen++] = (char)c;
            }
            break;
        case JK_COLON:
            if (is_blank(c))
                break;
            if (c != ':')
                return VP_SNIFF_NO;
            k->state = JK_VALUE;
            k->depth = 0;
            k->in_str = 0;
            break;
        case JK_VALUE:
            if (k->in_str) {
                if (json_string_byte(k, c))
                    k->in_str = 0;
            } else if (c == '"') {
                k->in_str = 1;
                k->escaped = 0;
            } else if (c == '{' || c == '[') {
                k->depth++;
            } else if (c == '}' || c == ']') {
                if (k->depth == 0)
                    return VP_SNIFF_NO; /* the top-level object ended */
                k->depth--;
            } else if (c == ',' && k->depth == 0) {
                k->state = JK_KEY;
            }
            break;
        }
    }
    return VP_SNIFF_MORE;
}

/* The text report's first line, or a JSON object with those keys. */
static int sniff_laige_profile(const uint8_t *head, size_t n, uint64_t size)
{
    size_t i = text_start(head, n);
    if (starts_with(head + i, n - i, "laige-profile"))
        return VP_SNIFF_YES;
    if (i >= n || head[i] != '{')
        return VP_SNIFF_NO;
    json_keys k;
    memset(&k, 0, sizeof k);
    int r = json_keys_feed(&k, head + i, n - i);
    return r == VP_SNIFF_MORE && n >= size ? VP_SNIFF_NO : r;
}

static int sniff_src_laige_profile(vp_src *src)
{
    json_keys k;
    memset(&k, 0, sizeof k);
    vp_error err;
    uint64_t off = 0;
    int first = 1;
    while (off < src->size) {
        size_t avail = 0;
        const uint8_t *p = vp_src_get(src, off, 0, &avail, &err);
        if (!p || avail == 0)
            return 0;
        size_t skip = first ? text_start(p, avail) : 0;
        first = 0;
        int r = json_keys_feed(&k, p + skip, avail - skip);
        if (r != VP_SNIFF_MORE)
            return r == VP_SNIFF_YES;
        off += avail;
    }
    return 0;
}

static int sniff_laige_budget(const uint8_t *head, size_t n, uint64_t size)
{
    (void)size;
    size_t i = text_start(head, n);
    return starts_with(head + i, n - i, "laige-budget-report") ? VP_SNIFF_YES : VP_SNIFF_NO;
}

/* The debug traces carry no magic at all, so their extension is the only
 * reliable witness: their first bytes can look like anything, even like
 * another format's. */
static const vp_format formats[] = {
    {VP_FMT_VPROF, {".vprof"}, "Source engine VProf frame-by-frame recording", sniff_vprof, NULL,
     0},
    {VP_FMT_DEVT, {".devt"}, "client event profiler export", NULL, NULL, 0},
    {VP_FMT_DLAG, {".dlag"}, "client lag profiler export", NULL, NULL, 0},
    {VP_FMT_DM, {".dm"}, "client movement trace", NULL, NULL, 0},
    {VP_FMT_DW, {".dw"}, "client weapon trace: client and server hits per bullet", NULL, NULL, 0},
    {VP_FMT_LAIGE_PROFILE, {".json", ".txt"}, "laige engine --prof-out run report (JSON or text)",
     sniff_laige_profile, sniff_src_laige_profile, 1},
    {VP_FMT_LAIGE_BUDGET, {".txt"}, "laige engine --budget-report output", sniff_laige_budget, NULL,
     1},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

const vp_format *vp_formats(size_t *count)
{
    *count = NFORMATS;
    return formats;
}

const vp_format *vp_format_find(const char *id)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(formats[i].id, id) == 0)
            return &formats[i];
    return NULL;
}

const vp_format *vp_format_for_ext(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    for (size_t i = 0; i < NFORMATS; i++)
        for (size_t k = 0; !formats[i].ext_generic && k < VP_FORMAT_MAX_EXT && formats[i].ext[k];
             k++)
            if (strcasecmp(dot, formats[i].ext[k]) == 0)
                return &formats[i];
    return NULL;
}

/* The head's verdict: the first format whose test says yes; else NULL,
 * with *more telling which formats' tests want the rest of the file. */
static const vp_format *detect_head(const uint8_t *head, size_t n, uint64_t size,
                                    unsigned *more)
{
    *more = 0;
    for (size_t i = 0; i < NFORMATS; i++) {
        if (!formats[i].sniff)
            continue;
        int r = formats[i].sniff(head, n, size);
        if (r == VP_SNIFF_YES)
            return &formats[i];
        if (r == VP_SNIFF_MORE && n < size)
            *more |= 1u << i;
    }
    return NULL;
}

const char *vp_detect(const uint8_t *head, size_t n, uint64_t size, const char *path)
{
    const vp_format *by_ext = vp_format_for_ext(path);
    if (by_ext && !by_ext->sniff)
        return by_ext->id;
    unsigned more;
    const vp_format *f = detect_head(head, n, size, &more);
    if (f)
        return f->id;
    return by_ext ? by_ext->id : NULL;
}

vp_errcode vp_detect_file(const char *path, const char **format, vp_error *err)
{
    /* The same open as the readers': a FIFO or device is refused at once. */
    vp_src src;
    vp_errcode rc = vp_src_open(&src, path, err);
    if (rc != VP_OK)
        return rc;
    const vp_format *by_ext = vp_format_for_ext(path);
    const vp_format *f = by_ext && !by_ext->sniff ? by_ext : NULL;
    if (!f) {
        size_t n = src.size < 4096 ? (size_t)src.size : 4096;
        const uint8_t *head = vp_src_get(&src, 0, n, NULL, err);
        if (!head) {
            vp_src_close(&src);
            return err->code;
        }
        unsigned more;
        f = detect_head(head, n, src.size, &more);
        for (size_t i = 0; !f && i < NFORMATS; i++)
            if ((more & (1u << i)) && formats[i].sniff_src && formats[i].sniff_src(&src))
                f = &formats[i];
        if (!f)
            f = by_ext;
    }
    vp_src_close(&src);
    *format = f ? f->id : NULL;
    if (!*format)
        return vp_fail(err, VP_EFORMAT, 0,
                       "not a format vpscript reads (expected a VProf capture, a .devt, .dlag, "
                       ".dm or .dw trace, or a laige profile or budget report; pass "
                       "{format = ...} to force one)");
    return VP_OK;
}
