/* Private to lib/remote. */
#ifndef PL_REMOTE_INTERNAL_H
#define PL_REMOTE_INTERNAL_H

#ifndef PL_REMOTE_SYSTEM_CONFIG
#define PL_REMOTE_SYSTEM_CONFIG "/etc/perflib/remote.conf"
#endif

/* The longest bearer token accepted from a token file. */
#define PL_REMOTE_TOKEN_MAX 4096

#endif
