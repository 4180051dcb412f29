/* A program written the Windows way against include/win32/pdh.h only: read
 * "\Processor(_Total)\% Processor Time" twice, one second apart, on the
 * live machine, and check that the value is a percentage. Exit code 0 on
 * success, 1 on failure (ctest runs it). */
#include <stdio.h>
#include <time.h>

#include "win32/pdh.h"

static int check(PDH_STATUS st, const char *what)
{
    if (st != ERROR_SUCCESS) {
        fprintf(stderr, "%s failed: 0x%08X\n", what, (unsigned)st);
        return 1;
    }
    return 0;
}

int main(void)
{
    PDH_HQUERY query = NULL;
    PDH_HCOUNTER counter = NULL;
    PDH_FMT_COUNTERVALUE value;
    DWORD type = 0;
    int bad = 0;

    if (check(PdhOpenQuery(NULL, 0, &query), "PdhOpenQuery")) return 1;
    if (check(PdhAddEnglishCounter(query, "\\Processor(_Total)\\% Processor Time", 0, &counter), "PdhAddCounter")) {
        PdhCloseQuery(query);
        return 1;
    }
    bad |= check(PdhCollectQueryData(query), "PdhCollectQueryData (1)");
    /* one sample of a rate has no value yet */
    PDH_STATUS st = PdhGetFormattedCounterValue(counter, PDH_FMT_DOUBLE, &type, &value);
    if (st != PDH_INVALID_DATA || value.CStatus != PDH_CSTATUS_INVALID_DATA) {
        fprintf(stderr, "first sample: 0x%08X, CStatus 0x%08X\n", (unsigned)st, (unsigned)value.CStatus);
        bad = 1;
    }
    struct timespec one = {1, 0};
    nanosleep(&one, NULL);
    bad |= check(PdhCollectQueryData(query), "PdhCollectQueryData (2)");
    bad |= check(PdhGetFormattedCounterValue(counter, PDH_FMT_DOUBLE, &type, &value), "PdhGetFormattedCounterValue");
    if (!bad && (value.CStatus != PDH_CSTATUS_VALID_DATA || !(value.doubleValue >= 0.0 && value.doubleValue <= 100.0))) {
        fprintf(stderr, "value %f, CStatus 0x%08X\n", value.doubleValue, (unsigned)value.CStatus);
        bad = 1;
    }
    PDH_RAW_COUNTER raw;
    bad |= check(PdhGetRawCounterValue(counter, NULL, &raw), "PdhGetRawCounterValue");
    if (!bad && (raw.CStatus != 0 || raw.SecondValue <= 0)) {
        fprintf(stderr, "raw: CStatus 0x%08X, SecondValue %lld\n", (unsigned)raw.CStatus, (long long)raw.SecondValue);
        bad = 1;
    }
    if (!bad) printf("%% Processor Time: %.3f (type 0x%08X)\n", value.doubleValue, (unsigned)type);
    bad |= check(PdhCloseQuery(query), "PdhCloseQuery");
    if (PdhCloseQuery(query) != PDH_INVALID_HANDLE) {
        fprintf(stderr, "a closed query is still valid\n");
        bad = 1;
    }
    return bad;
}
