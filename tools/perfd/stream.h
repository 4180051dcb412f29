/* perfd: the page's event streams (stream.c, docs/web.md). */
#ifndef PERFD_STREAM_H
#define PERFD_STREAM_H

/* End every stream and wait (at most 10 s) for their collector threads:
 * call before stopping libmicrohttpd (a suspended connection must be
 * resumed first) and before closing the engine they collect from. */
void perfd_streams_stop(void);

/* /v1/replay's log= check: 1 for a plain file name (1..255 bytes, no '/',
 * '\\' or control characters, not starting with '.'), else 0. */
int perfd_log_name_ok(const char *name);

/* The log_dir config key's directory ("" when none is set): /v1/replay
 * reads logs from it, /v1/logs (logs.c) lists them. */
const char *perfd_log_dir(void);

#endif
