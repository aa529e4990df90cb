#ifndef BLETRACE_CBLUEZ_SHIM_H
#define BLETRACE_CBLUEZ_SHIM_H
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
/* openpty(3), for the live-capture tests' pty pairs (Swift's Glibc module leaves out
   posix_openpt, grantpt, unlockpt and ptsname); in libc itself since glibc 2.34. */
#include <pty.h>
#endif
