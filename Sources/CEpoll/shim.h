// Linux's epoll for Swift (Glibc's module does not export <sys/epoll.h>): SocketPoller in the
// server waits on many live streams with it. Apple platforms use kqueue from Darwin instead.
#ifndef CHATSTREAM_CEPOLL_SHIM_H
#define CHATSTREAM_CEPOLL_SHIM_H

#include <sys/epoll.h>

#endif
