#ifndef PASSPORT_CPCSCLITE_SHIM_H
#define PASSPORT_CPCSCLITE_SHIM_H
#include <PCSC/winscard.h>
#include <PCSC/reader.h>
#endif
