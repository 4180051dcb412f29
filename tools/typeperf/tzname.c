/* Windows time zone names for the typeperf log header. The names are the
 * standard and daylight names of the Windows time zone database for the
 * IANA zones that map to them (facts; CLDR's windowsZones table pairs them
 * the same way). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tzname.h"

typedef struct zone {
    const char *id;           /* IANA name or abbreviation */
    const char *std, *dst;
} zone;

#define WEU "W. Europe Standard Time", "W. Europe Daylight Time"
#define ROM "Romance Standard Time", "Romance Daylight Time"
#define CEU "Central Europe Standard Time", "Central Europe Daylight Time"
#define CEN "Central European Standard Time", "Central European Daylight Time"
#define GMT "GMT Standard Time", "GMT Daylight Time"
#define FLE "FLE Standard Time", "FLE Daylight Time"
#define GTB "GTB Standard Time", "GTB Daylight Time"
#define RUS "Russian Standard Time", "Russian Daylight Time"
#define EST "Eastern Standard Time", "Eastern Daylight Time"
#define CST "Central Standard Time", "Central Daylight Time"
#define MST "Mountain Standard Time", "Mountain Daylight Time"
#define PST "Pacific Standard Time", "Pacific Daylight Time"
#define AKS "Alaskan Standard Time", "Alaskan Daylight Time"
#define HAW "Hawaiian Standard Time", "Hawaiian Daylight Time"
#define USM "US Mountain Standard Time", "US Mountain Daylight Time"
#define TOK "Tokyo Standard Time", "Tokyo Daylight Time"
#define CHN "China Standard Time", "China Daylight Time"
#define IND "India Standard Time", "India Daylight Time"
#define KOR "Korea Standard Time", "Korea Daylight Time"
#define SGP "Singapore Standard Time", "Singapore Daylight Time"
#define AUE "AUS Eastern Standard Time", "AUS Eastern Daylight Time"
#define ESA "E. South America Standard Time", "E. South America Daylight Time"
#define UTC "UTC", "UTC"

static const zone zones[] = {
    {"Europe/Berlin", WEU}, {"Europe/Amsterdam", WEU}, {"Europe/Vienna", WEU}, {"Europe/Rome", WEU},
    {"Europe/Stockholm", WEU}, {"Europe/Zurich", WEU}, {"Europe/Oslo", WEU}, {"Europe/Luxembourg", WEU},
    {"Europe/Monaco", WEU}, {"Europe/Malta", WEU}, {"Europe/Andorra", WEU}, {"Europe/Busingen", WEU},
    {"Europe/Paris", ROM}, {"Europe/Brussels", ROM}, {"Europe/Madrid", ROM}, {"Europe/Copenhagen", ROM},
    {"Europe/Prague", CEU}, {"Europe/Budapest", CEU}, {"Europe/Belgrade", CEU}, {"Europe/Bratislava", CEU},
    {"Europe/Ljubljana", CEU}, {"Europe/Warsaw", CEN}, {"Europe/Zagreb", CEN}, {"Europe/Sarajevo", CEN},
    {"Europe/Skopje", CEN}, {"Europe/London", GMT}, {"Europe/Dublin", GMT}, {"Europe/Lisbon", GMT},
    {"Europe/Helsinki", FLE}, {"Europe/Kiev", FLE}, {"Europe/Kyiv", FLE}, {"Europe/Riga", FLE},
    {"Europe/Sofia", FLE}, {"Europe/Tallinn", FLE}, {"Europe/Vilnius", FLE}, {"Europe/Athens", GTB},
    {"Europe/Bucharest", GTB}, {"Europe/Moscow", RUS},
    {"America/New_York", EST}, {"America/Detroit", EST}, {"America/Toronto", EST},
    {"America/Indiana/Indianapolis", EST}, {"America/Kentucky/Louisville", EST}, {"US/Eastern", EST},
    {"America/Chicago", CST}, {"America/Winnipeg", CST}, {"US/Central", CST},
    {"America/Denver", MST}, {"America/Edmonton", MST}, {"America/Boise", MST}, {"US/Mountain", MST},
    {"America/Phoenix", USM}, {"US/Arizona", USM},
    {"America/Los_Angeles", PST}, {"America/Vancouver", PST}, {"US/Pacific", PST},
    {"America/Anchorage", AKS}, {"US/Alaska", AKS}, {"Pacific/Honolulu", HAW}, {"US/Hawaii", HAW},
    {"America/Sao_Paulo", ESA},
    {"Asia/Tokyo", TOK}, {"Asia/Shanghai", CHN}, {"Asia/Hong_Kong", CHN}, {"Asia/Kolkata", IND},
    {"Asia/Calcutta", IND}, {"Asia/Seoul", KOR}, {"Asia/Singapore", SGP},
    {"Australia/Sydney", AUE}, {"Australia/Melbourne", AUE}, {"Australia/Canberra", AUE},
    {"UTC", UTC}, {"Etc/UTC", UTC}, {"Etc/UCT", UTC}, {"UCT", UTC}, {"Etc/Universal", UTC},
    {"Universal", UTC}, {"Etc/Zulu", UTC}, {"Zulu", UTC}, {"Etc/GMT", UTC}, {"GMT", UTC}, {"Etc/GMT+0", UTC},
    {"Etc/GMT-0", UTC}, {"Etc/GMT0", UTC}, {"GMT0", UTC},
};

/* Abbreviations (tm_zone) when the IANA name is unknown: the zone most often
 * meant by each (CET is taken as W. Europe, like Berlin). */
static const struct abbr {
    const char *abbr;
    const char *std, *dst;
    int is_dst;
} abbrs[] = {
    {"UTC", UTC, 0}, {"CET", WEU, 0}, {"CEST", WEU, 1}, {"EST", EST, 0}, {"EDT", EST, 1},
    {"CST", CST, 0}, {"CDT", CST, 1}, {"MST", MST, 0}, {"MDT", MST, 1}, {"PST", PST, 0}, {"PDT", PST, 1},
    {"MSK", RUS, 0}, {"JST", TOK, 0}, {"IST", IND, 0}, {"AKST", AKS, 0}, {"AKDT", AKS, 1},
    {"HST", HAW, 0}, {"KST", KOR, 0}, {"AEST", AUE, 0}, {"AEDT", AUE, 1},
};

const char *tp_windows_zone_name(const char *id, int dst)
{
    if (!id || !*id) return NULL;
    for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++)
        if (strcmp(zones[i].id, id) == 0) return dst ? zones[i].dst : zones[i].std;
    for (size_t i = 0; i < sizeof abbrs / sizeof abbrs[0]; i++)
        if (strcmp(abbrs[i].abbr, id) == 0) return (dst || abbrs[i].is_dst) ? abbrs[i].dst : abbrs[i].std;
    return NULL;
}

/* What follows "zoneinfo/" in a path, or NULL. */
static const char *after_zoneinfo(const char *p)
{
    const char *z = strstr(p, "zoneinfo/");
    return z ? z + 9 : NULL;
}

static void copy(char *out, size_t cap, const char *s, size_t n)
{
    if (cap == 0) return;
    if (n >= cap) n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

void tp_zone_id(const char *tz, const char *etc, char *out, size_t cap)
{
    if (cap) out[0] = '\0';
    if (tz && *tz) {
        if (*tz == ':') tz++;
        const char *z = after_zoneinfo(tz);
        if (z) { copy(out, cap, z, strlen(z)); return; }
        /* a name ("Europe/Berlin") or a POSIX rule ("CET-1CEST,M3.5.0,M10.5.0/3"):
         * a rule matches nothing in the table and the abbreviation is used */
        if (*tz != '/') copy(out, cap, tz, strlen(tz));
        return;
    }
    char path[512], buf[512];
    snprintf(path, sizeof path, "%s/timezone", etc);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(buf, sizeof buf, f)) {
            size_t n = strcspn(buf, " \t\r\n");
            if (n) { fclose(f); copy(out, cap, buf, n); return; }
        }
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/localtime", etc);
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
        const char *z = after_zoneinfo(buf);
        if (z) copy(out, cap, z, strlen(z));
    }
}

const char *tp_zone_name_bias(const struct tm *tm, const char *tz, const char *etc, int32_t *bias)
{
    char id[256];
    tp_zone_id(tz, etc, id, sizeof id);
    int dst = tm->tm_isdst > 0;
    const char *abbr = tm->tm_zone && *tm->tm_zone ? tm->tm_zone : "UTC";
    const char *name = tp_windows_zone_name(id, dst);
    if (!name) name = tp_windows_zone_name(abbr, dst);
    if (!name) name = abbr;
    *bias = (int32_t)(-tm->tm_gmtoff / 60);
    return name;
}

void tp_log_header_cell(const char *fmt, const struct tm *tm, const char *tz, const char *etc, char *out, size_t cap)
{
    int32_t bias;
    const char *name = tp_zone_name_bias(tm, tz, etc, &bias);
    snprintf(out, cap, "(PDH-%s 4.0) (%s)(%ld)", fmt, name, (long)bias);
}
