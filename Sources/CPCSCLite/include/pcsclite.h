#pragma once
// pcsc-lite's headers include each other as <pcsclite.h> and <wintypes.h>, a path pkg-config adds
// (-I/usr/include/PCSC) and a C target cannot: these two forward to the real ones.
#include <PCSC/pcsclite.h>
