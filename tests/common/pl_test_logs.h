/* A CSV log as Windows writes it, made for the tests following the
 * documented PDH-CSV 4.0 form exactly (shared/reference/typeperf-format.md):
 * header cell "(PDH-CSV 4.0) (<zone>)(<bias>)", full paths with their
 * machine, every field quoted (a quote doubled), " " for a value that does
 * not exist, CRLF. Two machines, a parent/instance, a duplicate instance,
 * a comma and a doubled quote inside a name; Berlin's summer time. */
#ifndef PL_TEST_LOGS_H
#define PL_TEST_LOGS_H

static const char pl_test_windows_csv[] =
    "\"(PDH-CSV 4.0) (W. Europe Daylight Time)(-120)\",\"\\\\WIN1\\Memory\\Available Bytes\","
    "\"\\\\WIN1\\Processor(_Total)\\% Processor Time\",\"\\\\WIN2\\Thread(explorer/0)\\% Processor Time\","
    "\"\\\\WIN1\\Process(svchost#1)\\Working Set\",\"\\\\WIN1\\LogicalDisk(a,\"\"b\"\")\\Free Megabytes\"\r\n"
    "\"07/01/2026 10:00:00.125\",\"1073741824\",\" \",\"12.5\",\"4096\",\"1\"\r\n"
    "\"07/01/2026 10:00:01.125\",\"1073741823\",\"37.5\",\" \",\"4100\",\"0.050000000000000003\"\r\n"
    "\"07/01/2026 10:00:02.125\",\"1073741822\",\"88.359340674585567\",\"0\",\" \",\"-2\"\r\n";

#endif
