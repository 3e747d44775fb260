#ifndef PASSPORT_CLIBSECRET_SHIM_H
#define PASSPORT_CLIBSECRET_SHIM_H
// The Secret Service API (GNOME Keyring, KWallet, KeePassXC) through libsecret.
#include <libsecret/secret.h>
#endif
