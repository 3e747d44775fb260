#ifndef PASSPORT_CPCSCLITE_H
#define PASSPORT_CPCSCLITE_H
// pcsc-lite's PC/SC API, typed by its headers (libpcsclite-dev). libpcsclite is not linked:
// `passport_pcsc_load` opens it when a command first talks to pcscd (scan, readers, desk,
// doctor), so that every other command starts on a machine without it.
#include <stddef.h>
#include <PCSC/winscard.h>
#include <PCSC/reader.h>

#define PASSPORT_PCSC_FUNCTIONS(X)                                                                 \
    X(SCardEstablishContext) X(SCardReleaseContext) X(SCardListReaders) X(SCardGetStatusChange)    \
    X(SCardConnect) X(SCardReconnect) X(SCardDisconnect) X(SCardStatus) X(SCardTransmit)           \
    X(SCardControl) X(pcsc_stringify_error)

/// pcsc-lite's functions that the toolkit calls, each typed as its header declares it, and
/// copies of its protocol control information for T=0, T=1 and raw (data symbols, read once).
typedef struct PassportPCSC {
#define PASSPORT_PCSC_FIELD(name) __typeof__(name) *_Nonnull name;
    PASSPORT_PCSC_FUNCTIONS(PASSPORT_PCSC_FIELD)
#undef PASSPORT_PCSC_FIELD
    SCARD_IO_REQUEST g_rgSCardT0Pci;
    SCARD_IO_REQUEST g_rgSCardT1Pci;
    SCARD_IO_REQUEST g_rgSCardRawPci;
} PassportPCSC;

/// Opens `soname` and fills `table` with its functions: 1, the library staying open for the life
/// of the process; or 0 with the reason in `error`.
int passport_pcsc_load(const char *_Nonnull soname, PassportPCSC *_Nonnull table, char *_Nonnull error, size_t size);

/// The soname of the pcsc-lite this program was built against ("libpcsclite.so.1").
const char *_Nonnull passport_pcsc_soname(void);

/// The Debian package that holds it ("libpcsclite1").
const char *_Nonnull passport_pcsc_package(void);
#endif
