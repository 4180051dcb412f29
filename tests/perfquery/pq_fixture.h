/* A deterministic registry store for tool tests: a fixed, tiny title
 * database, no built-in providers, and one provider installed with lodctr. */
#ifndef PQ_FIXTURE_H
#define PQ_FIXTURE_H

typedef struct pq_fixture {
    char *dir;           /* temp directory; pq_fixture_done removes it */
    char store[4200];    /* the store file inside it */
    char env_store[4300];/* "PERFLIB_REGISTRY=<store>" */
} pq_fixture;

/* Create the store: restore the fixed title database (Base Index 1847, Last
 * Counter 1846, Last Help 1847; names 1 2 4 6 238 248 250 700 1382 1846,
 * help 3 5 1847), remove
 * every provider record, then lodctr-install `ini` with its Library set to
 * `library` (an absolute path). Also sets PERFLIB_REGISTRY in this process,
 * so providers loaded here read the same store. Returns 0 or -1 (with a
 * message on stderr). */
int pq_fixture_make(pq_fixture *fx, const char *ini, const char *library);
/* Install one more provider into an existing fixture store. */
int pq_fixture_install(pq_fixture *fx, const char *ini, const char *library);
void pq_fixture_done(pq_fixture *fx);

#endif
