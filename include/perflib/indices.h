/* perflib: title indices of the built-in objects and counters.
 *
 * Windows English (009) indices are used wherever the meaning carries over,
 * so programs that hard-code them (2 System, 6 % Processor Time, 238
 * Processor, 674 System Up Time, ...) keep working; the values come from real
 * Windows title databases (docs/registry-store.md). Counters that only Linux
 * has get indices of our own: even numbers from 1848 (the first index after
 * the Windows Base Index 1847), allocated append-only -- never renumber or
 * reuse one, only add at the end of the Linux-only list.
 *
 * A counter index names a meaning, not an object: one index is shared by
 * every object that has that counter (PL_CTR_PCT_PROCESSOR_TIME is used by
 * Processor, Process and Thread).
 *
 * Help text index: every index in this file follows the usual Windows rule
 * help = name + 1, so PL_HELP(x) gives it. (The Windows 10 title backup we
 * checked has no help strings for 1530/1532/1534; we store ours at +1.)
 *
 * Base counters (PERF_*_BASE) have no title of their own: the definition of
 * a base carries the index of the counter it belongs to (PL_CTR_*_BASE below
 * equal that counter's index). */
#ifndef PERFLIB_INDICES_H
#define PERFLIB_INDICES_H

#define PL_HELP(x) ((x) + 1)

/* Title database fixed entries */
#define PL_IDX_BASE_INDEX 1          /* name "1" -> "1847" */
#define PL_IDX_END_MARKER 1846       /* name "End Marker" */
#define PL_IDX_LAST_BASE 1847        /* Base Index; help "End Marker" */
#define PL_IDX_FIRST_EXTENSIBLE 1848 /* first index of perflib's own counters */

/* ------------------------------------------------------------- objects */
#define PL_OBJ_SYSTEM                       2 /* System */
#define PL_OBJ_MEMORY                       4 /* Memory */
#define PL_OBJ_PROCESSOR                  238 /* Processor */
#define PL_OBJ_PAGING_FILE                700 /* Paging File */
#define PL_OBJ_PROCESS                    230 /* Process */
#define PL_OBJ_THREAD                     232 /* Thread */
#define PL_OBJ_IMAGE                      740 /* Image */
#define PL_OBJ_PROCESS_ADDRESS_SPACE      786 /* Process Address Space */
#define PL_OBJ_THREAD_DETAILS             816 /* Thread Details */
#define PL_OBJ_PHYSICAL_DISK              234 /* PhysicalDisk */
#define PL_OBJ_LOGICAL_DISK               236 /* LogicalDisk */
#define PL_OBJ_NETWORK_INTERFACE          510 /* Network Interface */
#define PL_OBJ_IPV4                       546 /* IPv4 */
#define PL_OBJ_IPV6                       548 /* IPv6 */
#define PL_OBJ_ICMP                       582 /* ICMP */
#define PL_OBJ_ICMPV6                    1534 /* ICMPv6 */
#define PL_OBJ_TCPV4                      638 /* TCPv4 */
#define PL_OBJ_TCPV6                     1530 /* TCPv6 */
#define PL_OBJ_UDPV4                      658 /* UDPv4 */
#define PL_OBJ_UDPV6                     1532 /* UDPv6 */
#define PL_OBJ_OBJECTS                    260 /* Objects */
#define PL_OBJ_PROCESSOR_INFORMATION     1966 /* Processor Information; a V2 counter set on Windows (no fixed index) */

/* ------------------------------------------ counters with Windows indices */

/* System (2) */
#define PL_CTR_PROCESSOR_QUEUE_LENGTH                      44 /* Processor Queue Length */
#define PL_CTR_PROCESSES                                  248 /* Processes */
#define PL_CTR_THREADS                                    250 /* Threads */
#define PL_CTR_SYSTEM_UP_TIME                             674 /* System Up Time */
#define PL_CTR_CONTEXT_SWITCHES_PER_SEC                   146 /* Context Switches/sec; also Thread */
#define PL_CTR_SYSTEM_CALLS_PER_SEC                       150 /* System Calls/sec */
#define PL_CTR_FILE_READ_OPERATIONS_PER_SEC                10 /* File Read Operations/sec */
#define PL_CTR_FILE_WRITE_OPERATIONS_PER_SEC               12 /* File Write Operations/sec */
#define PL_CTR_FILE_CONTROL_OPERATIONS_PER_SEC             14 /* File Control Operations/sec */
#define PL_CTR_FILE_READ_BYTES_PER_SEC                     16 /* File Read Bytes/sec */
#define PL_CTR_FILE_WRITE_BYTES_PER_SEC                    18 /* File Write Bytes/sec */
#define PL_CTR_FILE_CONTROL_BYTES_PER_SEC                  20 /* File Control Bytes/sec */
#define PL_CTR_SYSTEM_HANDLE_COUNT                        676 /* System Handle Count */

/* Objects (260); also uses Processes and Threads */
#define PL_CTR_EVENTS                                     252 /* Events */
#define PL_CTR_SEMAPHORES                                 254 /* Semaphores */
#define PL_CTR_MUTEXES                                    256 /* Mutexes */
#define PL_CTR_SECTIONS                                   258 /* Sections */

/* Memory (4) */
#define PL_CTR_AVAILABLE_BYTES                             24 /* Available Bytes */
#define PL_CTR_AVAILABLE_KBYTES                          1380 /* Available KBytes */
#define PL_CTR_AVAILABLE_MBYTES                          1382 /* Available MBytes; not 1824 (NUMA Node Memory) */
#define PL_CTR_COMMITTED_BYTES                             26 /* Committed Bytes; not 1762 (Heap) */
#define PL_CTR_COMMIT_LIMIT                                30 /* Commit Limit */
#define PL_CTR_PCT_COMMITTED_BYTES_IN_USE                1406 /* % Committed Bytes In Use */
#define PL_CTR_PAGE_FAULTS_PER_SEC                         28 /* Page Faults/sec; also Process */
#define PL_CTR_PAGES_PER_SEC                               40 /* Pages/sec; not 1514 'Pages/Sec' (Job Object) */
#define PL_CTR_PAGE_READS_PER_SEC                          42 /* Page Reads/sec */
#define PL_CTR_PAGES_INPUT_PER_SEC                        822 /* Pages Input/sec */
#define PL_CTR_PAGES_OUTPUT_PER_SEC                        48 /* Pages Output/sec */
#define PL_CTR_PAGE_WRITES_PER_SEC                         50 /* Page Writes/sec */
#define PL_CTR_TRANSITION_FAULTS_PER_SEC                   34 /* Transition Faults/sec */
#define PL_CTR_CACHE_FAULTS_PER_SEC                        36 /* Cache Faults/sec */
#define PL_CTR_DEMAND_ZERO_FAULTS_PER_SEC                  38 /* Demand Zero Faults/sec */
#define PL_CTR_CACHE_BYTES                                818 /* Cache Bytes */
#define PL_CTR_SYSTEM_CACHE_RESIDENT_BYTES                 76 /* System Cache Resident Bytes */
#define PL_CTR_CACHE_BYTES_PEAK                           820 /* Cache Bytes Peak */
#define PL_CTR_POOL_PAGED_BYTES                            56 /* Pool Paged Bytes; also Process */
#define PL_CTR_POOL_NONPAGED_BYTES                         58 /* Pool Nonpaged Bytes; also Process */
#define PL_CTR_FREE_AND_ZERO_PAGE_LIST_BYTES             1676 /* Free & Zero Page List Bytes */
#define PL_CTR_MODIFIED_PAGE_LIST_BYTES                  1678 /* Modified Page List Bytes */
#define PL_CTR_STANDBY_CACHE_RESERVE_BYTES               1680 /* Standby Cache Reserve Bytes */
#define PL_CTR_STANDBY_CACHE_NORMAL_PRIORITY_BYTES       1682 /* Standby Cache Normal Priority Bytes */
#define PL_CTR_STANDBY_CACHE_CORE_BYTES                  1684 /* Standby Cache Core Bytes */
#define PL_CTR_PCT_COMMITTED_BYTES_IN_USE_BASE     PL_CTR_PCT_COMMITTED_BYTES_IN_USE

/* Processor (238) */
#define PL_CTR_PCT_PROCESSOR_TIME                           6 /* % Processor Time; also Process, Thread */
#define PL_CTR_PCT_USER_TIME                              142 /* % User Time; also Process, Thread */
#define PL_CTR_PCT_PRIVILEGED_TIME                        144 /* % Privileged Time; also Process, Thread */
#define PL_CTR_PCT_INTERRUPT_TIME                         698 /* % Interrupt Time */
#define PL_CTR_PCT_DPC_TIME                               696 /* % DPC Time */
#define PL_CTR_PCT_IDLE_TIME                             1746 /* % Idle Time; Processor's; the disks' is 1482 */
#define PL_CTR_INTERRUPTS_PER_SEC                         148 /* Interrupts/sec */
#define PL_CTR_DPCS_QUEUED_PER_SEC                       1334 /* DPCs Queued/sec */
#define PL_CTR_DPC_RATE                                  1336 /* DPC Rate */
#define PL_CTR_PCT_C1_TIME                               1748 /* % C1 Time */
#define PL_CTR_PCT_C2_TIME                               1750 /* % C2 Time */
#define PL_CTR_PCT_C3_TIME                               1752 /* % C3 Time */
#define PL_CTR_C1_TRANSITIONS_PER_SEC                    1754 /* C1 Transitions/sec */
#define PL_CTR_C2_TRANSITIONS_PER_SEC                    1756 /* C2 Transitions/sec */
#define PL_CTR_C3_TRANSITIONS_PER_SEC                    1758 /* C3 Transitions/sec */

/* Paging File (700) */
#define PL_CTR_PCT_USAGE                                  702 /* % Usage */
#define PL_CTR_PCT_USAGE_PEAK                             704 /* % Usage Peak */
#define PL_CTR_PCT_USAGE_BASE                      PL_CTR_PCT_USAGE
#define PL_CTR_PCT_USAGE_PEAK_BASE                 PL_CTR_PCT_USAGE_PEAK

/* Process (230); % Processor Time, % User Time, % Privileged Time, Page Faults/sec,
 * Pool Paged Bytes and Pool Nonpaged Bytes are shared with the groups above */
#define PL_CTR_VIRTUAL_BYTES                              174 /* Virtual Bytes; not 1766 (Heap) */
#define PL_CTR_VIRTUAL_BYTES_PEAK                         172 /* Virtual Bytes Peak */
#define PL_CTR_WORKING_SET                                180 /* Working Set */
#define PL_CTR_WORKING_SET_PEAK                           178 /* Working Set Peak */
#define PL_CTR_WORKING_SET_PRIVATE                       1478 /* Working Set - Private */
#define PL_CTR_WORKING_SET_SHARED                        1480 /* Working Set - Shared */
#define PL_CTR_PRIVATE_BYTES                              186 /* Private Bytes */
#define PL_CTR_PAGE_FILE_BYTES                            184 /* Page File Bytes */
#define PL_CTR_PAGE_FILE_BYTES_PEAK                       182 /* Page File Bytes Peak */
#define PL_CTR_THREAD_COUNT                               680 /* Thread Count */
#define PL_CTR_PRIORITY_BASE                              682 /* Priority Base; also Thread */
#define PL_CTR_ELAPSED_TIME                               684 /* Elapsed Time; also Thread */
#define PL_CTR_ID_PROCESS                                 784 /* ID Process; also Thread, Process Address Space */
#define PL_CTR_CREATING_PROCESS_ID                       1410 /* Creating Process ID */
#define PL_CTR_HANDLE_COUNT                               952 /* Handle Count */
#define PL_CTR_IO_READ_OPERATIONS_PER_SEC                1412 /* IO Read Operations/sec */
#define PL_CTR_IO_WRITE_OPERATIONS_PER_SEC               1414 /* IO Write Operations/sec */
#define PL_CTR_IO_DATA_OPERATIONS_PER_SEC                1416 /* IO Data Operations/sec */
#define PL_CTR_IO_OTHER_OPERATIONS_PER_SEC               1418 /* IO Other Operations/sec */
#define PL_CTR_IO_READ_BYTES_PER_SEC                     1420 /* IO Read Bytes/sec */
#define PL_CTR_IO_WRITE_BYTES_PER_SEC                    1422 /* IO Write Bytes/sec */
#define PL_CTR_IO_DATA_BYTES_PER_SEC                     1424 /* IO Data Bytes/sec */
#define PL_CTR_IO_OTHER_BYTES_PER_SEC                    1426 /* IO Other Bytes/sec */

/* Thread (232); also uses % Processor Time, % User Time, % Privileged Time,
 * Context Switches/sec, Elapsed Time, Priority Base, ID Process */
#define PL_CTR_ID_THREAD                                  804 /* ID Thread */
#define PL_CTR_THREAD_STATE                                46 /* Thread State */
#define PL_CTR_THREAD_WAIT_REASON                         336 /* Thread Wait Reason */
#define PL_CTR_PRIORITY_CURRENT                           694 /* Priority Current */
#define PL_CTR_START_ADDRESS                              706 /* Start Address */

/* Thread Details (816) */
#define PL_CTR_USER_PC                                    708 /* User PC */

/* Image (740): bytes of the image's address space by page protection */
#define PL_CTR_NO_ACCESS                                  788 /* No Access */
#define PL_CTR_READ_ONLY                                  790 /* Read Only */
#define PL_CTR_READ_WRITE                                 792 /* Read/Write */
#define PL_CTR_WRITE_COPY                                 794 /* Write Copy */
#define PL_CTR_EXECUTABLE                                 796 /* Executable */
#define PL_CTR_EXEC_READ_ONLY                             798 /* Exec Read Only */
#define PL_CTR_EXEC_READ_WRITE                            800 /* Exec Read/Write */
#define PL_CTR_EXEC_WRITE_COPY                            802 /* Exec Write Copy */

/* Process Address Space (786); also uses ID Process */
#define PL_CTR_BYTES_IMAGE_RESERVED                       776 /* Bytes Image Reserved */
#define PL_CTR_BYTES_IMAGE_FREE                           778 /* Bytes Image Free */
#define PL_CTR_BYTES_RESERVED                             780 /* Bytes Reserved */
#define PL_CTR_BYTES_FREE                                 782 /* Bytes Free */
#define PL_CTR_MAPPED_SPACE_NO_ACCESS                     710 /* Mapped Space No Access */
#define PL_CTR_MAPPED_SPACE_READ_ONLY                     712 /* Mapped Space Read Only */
#define PL_CTR_MAPPED_SPACE_READ_WRITE                    714 /* Mapped Space Read/Write */
#define PL_CTR_MAPPED_SPACE_WRITE_COPY                    716 /* Mapped Space Write Copy */
#define PL_CTR_MAPPED_SPACE_EXECUTABLE                    718 /* Mapped Space Executable */
#define PL_CTR_MAPPED_SPACE_EXEC_READ_ONLY                720 /* Mapped Space Exec Read Only */
#define PL_CTR_MAPPED_SPACE_EXEC_READ_WRITE               722 /* Mapped Space Exec Read/Write */
#define PL_CTR_MAPPED_SPACE_EXEC_WRITE_COPY               724 /* Mapped Space Exec Write Copy */
#define PL_CTR_RESERVED_SPACE_NO_ACCESS                   726 /* Reserved Space No Access */
#define PL_CTR_RESERVED_SPACE_READ_ONLY                   728 /* Reserved Space Read Only */
#define PL_CTR_RESERVED_SPACE_READ_WRITE                  730 /* Reserved Space Read/Write */
#define PL_CTR_RESERVED_SPACE_WRITE_COPY                  732 /* Reserved Space Write Copy */
#define PL_CTR_RESERVED_SPACE_EXECUTABLE                  734 /* Reserved Space Executable */
#define PL_CTR_RESERVED_SPACE_EXEC_READ_ONLY              736 /* Reserved Space Exec Read Only */
#define PL_CTR_RESERVED_SPACE_EXEC_READ_WRITE             738 /* Reserved Space Exec Read/Write */
#define PL_CTR_RESERVED_SPACE_EXEC_WRITE_COPY             742 /* Reserved Space Exec Write Copy */
#define PL_CTR_UNASSIGNED_SPACE_NO_ACCESS                 744 /* Unassigned Space No Access */
#define PL_CTR_UNASSIGNED_SPACE_READ_ONLY                 746 /* Unassigned Space Read Only */
#define PL_CTR_UNASSIGNED_SPACE_READ_WRITE                748 /* Unassigned Space Read/Write */
#define PL_CTR_UNASSIGNED_SPACE_WRITE_COPY                750 /* Unassigned Space Write Copy */
#define PL_CTR_UNASSIGNED_SPACE_EXECUTABLE                752 /* Unassigned Space Executable */
#define PL_CTR_UNASSIGNED_SPACE_EXEC_READ_ONLY            754 /* Unassigned Space Exec Read Only */
#define PL_CTR_UNASSIGNED_SPACE_EXEC_READ_WRITE           756 /* Unassigned Space Exec Read/Write */
#define PL_CTR_UNASSIGNED_SPACE_EXEC_WRITE_COPY           758 /* Unassigned Space Exec Write Copy */
#define PL_CTR_IMAGE_SPACE_NO_ACCESS                      760 /* Image Space No Access */
#define PL_CTR_IMAGE_SPACE_READ_ONLY                      762 /* Image Space Read Only */
#define PL_CTR_IMAGE_SPACE_READ_WRITE                     764 /* Image Space Read/Write */
#define PL_CTR_IMAGE_SPACE_WRITE_COPY                     766 /* Image Space Write Copy */
#define PL_CTR_IMAGE_SPACE_EXECUTABLE                     768 /* Image Space Executable */
#define PL_CTR_IMAGE_SPACE_EXEC_READ_ONLY                 770 /* Image Space Exec Read Only */
#define PL_CTR_IMAGE_SPACE_EXEC_READ_WRITE                772 /* Image Space Exec Read/Write */
#define PL_CTR_IMAGE_SPACE_EXEC_WRITE_COPY                774 /* Image Space Exec Write Copy */

/* PhysicalDisk (234) and LogicalDisk (236) */
#define PL_CTR_PCT_DISK_TIME                              200 /* % Disk Time */
#define PL_CTR_PCT_DISK_READ_TIME                         202 /* % Disk Read Time */
#define PL_CTR_PCT_DISK_WRITE_TIME                        204 /* % Disk Write Time */
#define PL_CTR_PCT_IDLE_TIME_DISK                        1482 /* % Idle Time; the disks'; Processor's is 1746 */
#define PL_CTR_AVG_DISK_QUEUE_LENGTH                     1400 /* Avg. Disk Queue Length */
#define PL_CTR_AVG_DISK_READ_QUEUE_LENGTH                1402 /* Avg. Disk Read Queue Length */
#define PL_CTR_AVG_DISK_WRITE_QUEUE_LENGTH               1404 /* Avg. Disk Write Queue Length */
#define PL_CTR_CURRENT_DISK_QUEUE_LENGTH                  198 /* Current Disk Queue Length */
#define PL_CTR_AVG_DISK_SEC_PER_TRANSFER                  206 /* Avg. Disk sec/Transfer */
#define PL_CTR_AVG_DISK_SEC_PER_READ                      208 /* Avg. Disk sec/Read */
#define PL_CTR_AVG_DISK_SEC_PER_WRITE                     210 /* Avg. Disk sec/Write */
#define PL_CTR_DISK_TRANSFERS_PER_SEC                     212 /* Disk Transfers/sec */
#define PL_CTR_DISK_READS_PER_SEC                         214 /* Disk Reads/sec */
#define PL_CTR_DISK_WRITES_PER_SEC                        216 /* Disk Writes/sec */
#define PL_CTR_DISK_BYTES_PER_SEC                         218 /* Disk Bytes/sec */
#define PL_CTR_DISK_READ_BYTES_PER_SEC                    220 /* Disk Read Bytes/sec */
#define PL_CTR_DISK_WRITE_BYTES_PER_SEC                   222 /* Disk Write Bytes/sec */
#define PL_CTR_AVG_DISK_BYTES_PER_TRANSFER                224 /* Avg. Disk Bytes/Transfer */
#define PL_CTR_AVG_DISK_BYTES_PER_READ                    226 /* Avg. Disk Bytes/Read */
#define PL_CTR_AVG_DISK_BYTES_PER_WRITE                   228 /* Avg. Disk Bytes/Write */
#define PL_CTR_SPLIT_IO_PER_SEC                          1484 /* Split IO/Sec */
#define PL_CTR_PCT_FREE_SPACE                             408 /* % Free Space */
#define PL_CTR_FREE_MEGABYTES                             410 /* Free Megabytes */
#define PL_CTR_PCT_FREE_SPACE_BASE                 PL_CTR_PCT_FREE_SPACE

/* Network Interface (510) */
#define PL_CTR_BYTES_TOTAL_PER_SEC                        388 /* Bytes Total/sec */
#define PL_CTR_PACKETS_PER_SEC                            400 /* Packets/sec; index shared with NWLink */
#define PL_CTR_PACKETS_RECEIVED_PER_SEC                   266 /* Packets Received/sec; index shared with Redirector */
#define PL_CTR_PACKETS_SENT_PER_SEC                       452 /* Packets Sent/sec */
#define PL_CTR_CURRENT_BANDWIDTH                          520 /* Current Bandwidth */
#define PL_CTR_BYTES_RECEIVED_PER_SEC                     264 /* Bytes Received/sec; index shared with Redirector */
#define PL_CTR_PACKETS_RECEIVED_UNICAST_PER_SEC           524 /* Packets Received Unicast/sec */
#define PL_CTR_PACKETS_RECEIVED_NON_UNICAST_PER_SEC       526 /* Packets Received Non-Unicast/sec */
#define PL_CTR_PACKETS_RECEIVED_DISCARDED                 528 /* Packets Received Discarded */
#define PL_CTR_PACKETS_RECEIVED_ERRORS                    530 /* Packets Received Errors */
#define PL_CTR_PACKETS_RECEIVED_UNKNOWN                   532 /* Packets Received Unknown */
#define PL_CTR_BYTES_SENT_PER_SEC                         506 /* Bytes Sent/sec; index shared with NBT Connection */
#define PL_CTR_PACKETS_SENT_UNICAST_PER_SEC               536 /* Packets Sent Unicast/sec */
#define PL_CTR_PACKETS_SENT_NON_UNICAST_PER_SEC           538 /* Packets Sent Non-Unicast/sec */
#define PL_CTR_PACKETS_OUTBOUND_DISCARDED                 540 /* Packets Outbound Discarded */
#define PL_CTR_PACKETS_OUTBOUND_ERRORS                    542 /* Packets Outbound Errors */
#define PL_CTR_OUTPUT_QUEUE_LENGTH                        544 /* Output Queue Length */

/* IPv4 (546) and IPv6 (548); UDPv4/UDPv6 share Datagrams/sec, Datagrams Received/sec
 * and Datagrams Sent/sec */
#define PL_CTR_DATAGRAMS_PER_SEC                          438 /* Datagrams/sec; index shared with NetBEUI/NWLink */
#define PL_CTR_DATAGRAMS_RECEIVED_PER_SEC                 446 /* Datagrams Received/sec */
#define PL_CTR_DATAGRAMS_RECEIVED_HEADER_ERRORS           552 /* Datagrams Received Header Errors */
#define PL_CTR_DATAGRAMS_RECEIVED_ADDRESS_ERRORS          554 /* Datagrams Received Address Errors */
#define PL_CTR_DATAGRAMS_FORWARDED_PER_SEC                556 /* Datagrams Forwarded/sec */
#define PL_CTR_DATAGRAMS_RECEIVED_UNKNOWN_PROTOCOL        558 /* Datagrams Received Unknown Protocol */
#define PL_CTR_DATAGRAMS_RECEIVED_DISCARDED               560 /* Datagrams Received Discarded */
#define PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC       562 /* Datagrams Received Delivered/sec */
#define PL_CTR_DATAGRAMS_SENT_PER_SEC                     442 /* Datagrams Sent/sec */
#define PL_CTR_DATAGRAMS_OUTBOUND_DISCARDED               566 /* Datagrams Outbound Discarded */
#define PL_CTR_DATAGRAMS_OUTBOUND_NO_ROUTE                568 /* Datagrams Outbound No Route */
#define PL_CTR_FRAGMENTS_RECEIVED_PER_SEC                 570 /* Fragments Received/sec */
#define PL_CTR_FRAGMENTS_REASSEMBLED_PER_SEC              572 /* Fragments Re-assembled/sec */
#define PL_CTR_FRAGMENT_REASSEMBLY_FAILURES               574 /* Fragment Re-assembly Failures */
#define PL_CTR_FRAGMENTED_DATAGRAMS_PER_SEC               576 /* Fragmented Datagrams/sec */
#define PL_CTR_FRAGMENTATION_FAILURES                     578 /* Fragmentation Failures */
#define PL_CTR_FRAGMENTS_CREATED_PER_SEC                  580 /* Fragments Created/sec */

/* ICMP (582) and ICMPv6 (1534) */
#define PL_CTR_MESSAGES_PER_SEC                           584 /* Messages/sec */
#define PL_CTR_MESSAGES_RECEIVED_PER_SEC                  586 /* Messages Received/sec */
#define PL_CTR_MESSAGES_RECEIVED_ERRORS                   588 /* Messages Received Errors */
#define PL_CTR_RECEIVED_DEST_UNREACHABLE                  590 /* Received Dest. Unreachable */
#define PL_CTR_RECEIVED_TIME_EXCEEDED                     592 /* Received Time Exceeded */
#define PL_CTR_RECEIVED_PARAMETER_PROBLEM                 594 /* Received Parameter Problem */
#define PL_CTR_RECEIVED_SOURCE_QUENCH                     596 /* Received Source Quench */
#define PL_CTR_RECEIVED_REDIRECT_PER_SEC                  598 /* Received Redirect/sec */
#define PL_CTR_RECEIVED_ECHO_PER_SEC                      600 /* Received Echo/sec */
#define PL_CTR_RECEIVED_ECHO_REPLY_PER_SEC                602 /* Received Echo Reply/sec */
#define PL_CTR_RECEIVED_TIMESTAMP_PER_SEC                 604 /* Received Timestamp/sec */
#define PL_CTR_RECEIVED_TIMESTAMP_REPLY_PER_SEC           606 /* Received Timestamp Reply/sec */
#define PL_CTR_RECEIVED_ADDRESS_MASK                      608 /* Received Address Mask */
#define PL_CTR_RECEIVED_ADDRESS_MASK_REPLY                610 /* Received Address Mask Reply */
#define PL_CTR_MESSAGES_SENT_PER_SEC                      612 /* Messages Sent/sec */
#define PL_CTR_MESSAGES_OUTBOUND_ERRORS                   614 /* Messages Outbound Errors */
#define PL_CTR_SENT_DESTINATION_UNREACHABLE               616 /* Sent Destination Unreachable */
#define PL_CTR_SENT_TIME_EXCEEDED                         618 /* Sent Time Exceeded */
#define PL_CTR_SENT_PARAMETER_PROBLEM                     620 /* Sent Parameter Problem */
#define PL_CTR_SENT_SOURCE_QUENCH                         622 /* Sent Source Quench */
#define PL_CTR_SENT_REDIRECT_PER_SEC                      624 /* Sent Redirect/sec */
#define PL_CTR_SENT_ECHO_PER_SEC                          626 /* Sent Echo/sec */
#define PL_CTR_SENT_ECHO_REPLY_PER_SEC                    628 /* Sent Echo Reply/sec */
#define PL_CTR_SENT_TIMESTAMP_PER_SEC                     630 /* Sent Timestamp/sec */
#define PL_CTR_SENT_TIMESTAMP_REPLY_PER_SEC               632 /* Sent Timestamp Reply/sec */
#define PL_CTR_SENT_ADDRESS_MASK                          634 /* Sent Address Mask */
#define PL_CTR_SENT_ADDRESS_MASK_REPLY                    636 /* Sent Address Mask Reply */
#define PL_CTR_RECEIVED_PACKET_TOO_BIG                   1536 /* Received Packet Too Big */
#define PL_CTR_RECEIVED_MEMBERSHIP_QUERY                 1538 /* Received Membership Query */
#define PL_CTR_RECEIVED_MEMBERSHIP_REPORT                1540 /* Received Membership Report */
#define PL_CTR_RECEIVED_MEMBERSHIP_REDUCTION             1542 /* Received Membership Reduction */
#define PL_CTR_RECEIVED_ROUTER_SOLICIT                   1544 /* Received Router Solicit */
#define PL_CTR_RECEIVED_ROUTER_ADVERT                    1546 /* Received Router Advert */
#define PL_CTR_RECEIVED_NEIGHBOR_SOLICIT                 1550 /* Received Neighbor Solicit */
#define PL_CTR_RECEIVED_NEIGHBOR_ADVERT                  1552 /* Received Neighbor Advert */
#define PL_CTR_SENT_PACKET_TOO_BIG                       1554 /* Sent Packet Too Big */
#define PL_CTR_SENT_MEMBERSHIP_QUERY                     1556 /* Sent Membership Query */
#define PL_CTR_SENT_MEMBERSHIP_REPORT                    1558 /* Sent Membership Report */
#define PL_CTR_SENT_MEMBERSHIP_REDUCTION                 1560 /* Sent Membership Reduction */
#define PL_CTR_SENT_ROUTER_SOLICIT                       1562 /* Sent Router Solicit */
#define PL_CTR_SENT_ROUTER_ADVERT                        1564 /* Sent Router Advert */
#define PL_CTR_SENT_NEIGHBOR_SOLICIT                     1566 /* Sent Neighbor Solicit */
#define PL_CTR_SENT_NEIGHBOR_ADVERT                      1568 /* Sent Neighbor Advert */

/* TCPv4 (638) and TCPv6 (1530) */
#define PL_CTR_SEGMENTS_PER_SEC                           640 /* Segments/sec */
#define PL_CTR_CONNECTIONS_ESTABLISHED                    642 /* Connections Established */
#define PL_CTR_CONNECTIONS_ACTIVE                         644 /* Connections Active */
#define PL_CTR_CONNECTIONS_PASSIVE                        646 /* Connections Passive */
#define PL_CTR_CONNECTION_FAILURES                        648 /* Connection Failures */
#define PL_CTR_CONNECTIONS_RESET                          650 /* Connections Reset */
#define PL_CTR_SEGMENTS_RECEIVED_PER_SEC                  652 /* Segments Received/sec */
#define PL_CTR_SEGMENTS_SENT_PER_SEC                      654 /* Segments Sent/sec */
#define PL_CTR_SEGMENTS_RETRANSMITTED_PER_SEC             656 /* Segments Retransmitted/sec */

/* UDPv4 (658) and UDPv6 (1532) */
#define PL_CTR_DATAGRAMS_NO_PORT_PER_SEC                  664 /* Datagrams No Port/sec */
#define PL_CTR_DATAGRAMS_RECEIVED_ERRORS                  666 /* Datagrams Received Errors */

/* --------------------------------------- Linux-only counters (append-only) */

/* System (2), provider PerfOS */
#define PL_CTR_LOAD_AVERAGE_1MIN                         1848 /* Load Average 1 Minute */
#define PL_CTR_LOAD_AVERAGE_5MIN                         1850 /* Load Average 5 Minutes */
#define PL_CTR_LOAD_AVERAGE_15MIN                        1852 /* Load Average 15 Minutes */
#define PL_CTR_CPU_PRESSURE_SOME_AVG10                   1854 /* CPU Pressure Some Avg10 */
#define PL_CTR_CPU_PRESSURE_SOME_TOTAL                   1856 /* CPU Pressure Some Total */
#define PL_CTR_CPU_PRESSURE_FULL_AVG10                   1858 /* CPU Pressure Full Avg10 */
#define PL_CTR_CPU_PRESSURE_FULL_TOTAL                   1860 /* CPU Pressure Full Total */
#define PL_CTR_MEMORY_PRESSURE_SOME_AVG10                1862 /* Memory Pressure Some Avg10 */
#define PL_CTR_MEMORY_PRESSURE_SOME_TOTAL                1864 /* Memory Pressure Some Total */
#define PL_CTR_MEMORY_PRESSURE_FULL_AVG10                1866 /* Memory Pressure Full Avg10 */
#define PL_CTR_MEMORY_PRESSURE_FULL_TOTAL                1868 /* Memory Pressure Full Total */
#define PL_CTR_IO_PRESSURE_SOME_AVG10                    1870 /* IO Pressure Some Avg10 */
#define PL_CTR_IO_PRESSURE_SOME_TOTAL                    1872 /* IO Pressure Some Total */
#define PL_CTR_IO_PRESSURE_FULL_AVG10                    1874 /* IO Pressure Full Avg10 */
#define PL_CTR_IO_PRESSURE_FULL_TOTAL                    1876 /* IO Pressure Full Total */
#define PL_CTR_PROCESSES_RUNNING                         1878 /* Processes Running */
#define PL_CTR_PROCESSES_BLOCKED                         1880 /* Processes Blocked */
#define PL_CTR_FORKS_PER_SEC                             1882 /* Forks/sec */

/* Memory (4), provider PerfOS */
#define PL_CTR_TOTAL_BYTES                               1884 /* Total Bytes */
#define PL_CTR_FREE_BYTES                                1886 /* Free Bytes */
#define PL_CTR_BUFFERS_BYTES                             1888 /* Buffers Bytes */
#define PL_CTR_CACHED_BYTES                              1890 /* Cached Bytes */
#define PL_CTR_DIRTY_BYTES                               1892 /* Dirty Bytes */
#define PL_CTR_WRITEBACK_BYTES                           1894 /* Writeback Bytes */
#define PL_CTR_SLAB_BYTES                                1896 /* Slab Bytes */
#define PL_CTR_SHMEM_BYTES                               1898 /* Shmem Bytes */
#define PL_CTR_SWAP_TOTAL_BYTES                          1900 /* Swap Total Bytes */
#define PL_CTR_SWAP_FREE_BYTES                           1902 /* Swap Free Bytes */
#define PL_CTR_HUGE_PAGES_TOTAL                          1904 /* Huge Pages Total */
#define PL_CTR_HUGE_PAGES_FREE                           1906 /* Huge Pages Free */
#define PL_CTR_HUGE_PAGE_SIZE_BYTES                      1908 /* Huge Page Size Bytes */

/* Processor (238), provider PerfOS */
#define PL_CTR_PCT_NICE_TIME                             1910 /* % Nice Time */
#define PL_CTR_PCT_IO_WAIT_TIME                          1912 /* % IO Wait Time */
#define PL_CTR_PCT_STEAL_TIME                            1914 /* % Steal Time */
#define PL_CTR_PCT_GUEST_TIME                            1916 /* % Guest Time */

/* Paging File (700), provider PerfOS */
#define PL_CTR_SIZE_BYTES                                1918 /* Size Bytes */
#define PL_CTR_USED_BYTES                                1920 /* Used Bytes */

/* Process (230) and Thread (232), provider PerfProc */
#define PL_CTR_MAJOR_PAGE_FAULTS_PER_SEC                 1922 /* Major Page Faults/sec */
#define PL_CTR_MINOR_PAGE_FAULTS_PER_SEC                 1924 /* Minor Page Faults/sec */
#define PL_CTR_VOLUNTARY_CONTEXT_SWITCHES_PER_SEC        1926 /* Voluntary Context Switches/sec */
#define PL_CTR_INVOLUNTARY_CONTEXT_SWITCHES_PER_SEC      1928 /* Involuntary Context Switches/sec */
#define PL_CTR_NICE_VALUE                                1930 /* Nice Value */
#define PL_CTR_RESIDENT_SHARED_BYTES                     1932 /* Resident Shared Bytes */
#define PL_CTR_SWAP_BYTES                                1934 /* Swap Bytes */
#define PL_CTR_OPEN_FILE_DESCRIPTOR_LIMIT                1936 /* Open File Descriptor Limit */
#define PL_CTR_LAST_PROCESSOR                            1938 /* Last Processor */
#define PL_CTR_PROCESS_STATE                             1940 /* Process State */

/* Image (740) and Process Address Space (786), provider PerfProc */
#define PL_CTR_MAPPED_BYTES                              1942 /* Mapped Bytes */
#define PL_CTR_RESIDENT_BYTES                            1944 /* Resident Bytes */
#define PL_CTR_PRIVATE_RESIDENT_BYTES                    1946 /* Private Resident Bytes */

/* PhysicalDisk (234) and LogicalDisk (236), provider PerfDisk */
#define PL_CTR_DISCARDS_PER_SEC                          1948 /* Discards/sec */
#define PL_CTR_DISCARD_BYTES_PER_SEC                     1950 /* Discard Bytes/sec */
#define PL_CTR_FLUSHES_PER_SEC                           1952 /* Flushes/sec */
#define PL_CTR_SIZE_MEGABYTES                            1954 /* Size Megabytes */

/* Network Interface (510), provider PerfNet */
#define PL_CTR_MULTICAST_PACKETS_RECEIVED_PER_SEC        1956 /* Multicast Packets Received/sec */
#define PL_CTR_COLLISIONS                                1958 /* Collisions */
#define PL_CTR_CARRIER_ERRORS                            1960 /* Carrier Errors */
#define PL_CTR_MTU                                       1962 /* MTU */

/* Process (230) and Thread (232), appended, provider PerfProc */
#define PL_CTR_UNAVAILABLE_COUNTERS                      1964 /* Unavailable Counters */

/* Processor Information, provider PerfOS: Windows registers this object as
 * a V2 counter set, whose titles have no fixed index, so its object and its
 * own counters take perflib indices (the counters it shares with Processor
 * keep theirs). */
#define PL_CTR_PCT_PROCESSOR_UTILITY                     1968 /* % Processor Utility */
#define PL_CTR_PROCESSOR_FREQUENCY                       1970 /* Processor Frequency */
#define PL_CTR_PCT_OF_MAXIMUM_FREQUENCY                  1972 /* % of Maximum Frequency */

/* Highest index defined above; the next Linux-only counter gets +2. */
#define PL_CTR_LAST_BUILTIN 1972

/* perflib keeps 1848..PL_IDX_BUILTIN_RESERVED_LAST for its own Linux-only
 * titles, so titles added in later versions never collide with a third
 * party's: a new store starts with Last Counter at this value (Last Help one
 * more), lodctr hands out indices above it, and unlodctr never lowers Last
 * Counter below it. */
#define PL_IDX_BUILTIN_RESERVED_LAST 2998

/* Bump when base_titles.c or the built-in provider records change: a store
 * seeded by an older version gets the missing built-in titles (never
 * overwriting a title already there) and the current built-in provider
 * records when it is next opened for writing. */
#define PL_SEED_VERSION 7 /* 3: PerfOS's block reaches Unavailable Counters (1964); 4: Memory fault kinds 34-38;
                             5: Objects (260) and its counters, PerfOS's Object List;
                             6: Processor Information (1966-1972);
                             7: System Cache Resident Bytes (76) */

/* Note: the Linux-only "Free Bytes" (Memory) shares its text with Heap's
 * 1768; look counters up by index, or by name within their object. */

/* The blocks of Linux-only indices of each built-in provider (its First/Last
 * Counter in a new store; First/Last Help are PL_HELP of these). The host
 * refuses objects whose title indices lie outside the base set and the
 * provider's block, so a block must cover every index its provider uses:
 * when a counter is appended later, the block of the provider that uses it
 * grows to reach it, even across other providers' blocks (built-in providers
 * are never uninstalled, so an overlap is harmless). PerfProc's and
 * PerfOS's reach Unavailable Counters (1964); PerfOS's also Processor
 * Information (1966-1972). */
#define PL_RANGE_PERFOS_FIRST 1848
#define PL_RANGE_PERFOS_LAST  1972
#define PL_RANGE_PERFPROC_FIRST 1922
#define PL_RANGE_PERFPROC_LAST  1964
#define PL_RANGE_PERFDISK_FIRST 1948
#define PL_RANGE_PERFDISK_LAST  1954
#define PL_RANGE_PERFNET_FIRST 1956
#define PL_RANGE_PERFNET_LAST  1962

#endif
