#ifndef PASSPORT_CLIBSECRET_H
#define PASSPORT_CLIBSECRET_H
// The Secret Service (GNOME Keyring, KWallet, KeePassXC) through libsecret and the GLib it is
// built on. Neither is linked: `passport_secret_load` opens them when the key store first looks
// for the system keyring (keys, issue, present, doctor with a session bus), so that every other
// command starts on a machine without them.
//
// GLib's headers cannot be compiled without the include paths pkg-config gives (glibconfig.h
// lives under the architecture's lib folder), which a C target cannot be given, so the few
// functions used are declared here by their documented C signatures. A test compiles these
// declarations against libsecret's and GLib's own headers (PASSPORT_SECRET_TYPES_FROM_GLIB).
#include <stddef.h>
#include <stdint.h>

/// GLib's GError: an error's domain (a GQuark), code and message.
#define PASSPORT_GERROR_FIELDS uint32_t domain; int code; char *_Nullable message;

#ifndef PASSPORT_SECRET_TYPES_FROM_GLIB
typedef struct _SecretService SecretService;
typedef struct _SecretCollection SecretCollection;
typedef struct _SecretValue SecretValue;
typedef struct _SecretSchema SecretSchema;
typedef struct _GCancellable GCancellable;
typedef struct _GHashTable GHashTable;
typedef struct _GList GList;
typedef struct _GError { PASSPORT_GERROR_FIELDS } GError;
typedef unsigned int (*GHashFunc)(const void *_Nullable key);
typedef int (*GEqualFunc)(const void *_Nullable a, const void *_Nullable b);
typedef enum { SECRET_SERVICE_NONE = 0, SECRET_SERVICE_OPEN_SESSION = 1 << 1, SECRET_SERVICE_LOAD_COLLECTIONS = 1 << 2 } SecretServiceFlags;
typedef enum { SECRET_COLLECTION_NONE = 0, SECRET_COLLECTION_LOAD_ITEMS = 1 << 1 } SecretCollectionFlags;
#define SECRET_COLLECTION_DEFAULT "default"
#endif

#define PASSPORT_SECRET_FUNCTIONS(X)                                                               \
    X(secret_service_get_sync) X(secret_collection_for_alias_sync) X(secret_collection_get_locked)   \
    X(secret_service_unlock_sync) X(secret_service_lookup_sync) X(secret_service_store_sync)         \
    X(secret_value_new) X(secret_value_get) X(secret_value_unref)                                    \
    X(g_clear_error) X(g_dbus_error_quark) X(g_object_unref) X(g_list_append) X(g_list_free)         \
    X(g_hash_table_new) X(g_hash_table_insert) X(g_hash_table_unref) X(g_str_hash) X(g_str_equal)

/// libsecret's and GLib's functions that the toolkit calls, with their C signatures (gboolean,
/// gint: int; guint: unsigned int; gsize, gssize: size_t, ptrdiff_t; gpointer: void *).
typedef struct PassportSecret {
    SecretService *_Nullable (*_Nonnull secret_service_get_sync)(SecretServiceFlags flags, GCancellable *_Nullable cancellable, GError *_Nullable *_Nullable error);
    SecretCollection *_Nullable (*_Nonnull secret_collection_for_alias_sync)(SecretService *_Nullable service, const char *_Nonnull alias,
        SecretCollectionFlags flags, GCancellable *_Nullable cancellable, GError *_Nullable *_Nullable error);
    int (*_Nonnull secret_collection_get_locked)(SecretCollection *_Nonnull collection);
    int (*_Nonnull secret_service_unlock_sync)(SecretService *_Nullable service, GList *_Nonnull objects, GCancellable *_Nullable cancellable,
        GList *_Nullable *_Nullable unlocked, GError *_Nullable *_Nullable error);
    SecretValue *_Nullable (*_Nonnull secret_service_lookup_sync)(SecretService *_Nullable service, const SecretSchema *_Nullable schema,
        GHashTable *_Nonnull attributes, GCancellable *_Nullable cancellable, GError *_Nullable *_Nullable error);
    int (*_Nonnull secret_service_store_sync)(SecretService *_Nullable service, const SecretSchema *_Nullable schema, GHashTable *_Nonnull attributes,
        const char *_Nullable collection, const char *_Nonnull label, SecretValue *_Nonnull value, GCancellable *_Nullable cancellable,
        GError *_Nullable *_Nullable error);
    SecretValue *_Nonnull (*_Nonnull secret_value_new)(const char *_Nonnull secret, ptrdiff_t length, const char *_Nonnull content_type);
    const char *_Nullable (*_Nonnull secret_value_get)(SecretValue *_Nonnull value, size_t *_Nullable length);
    void (*_Nonnull secret_value_unref)(void *_Nonnull value);
    void (*_Nonnull g_clear_error)(GError *_Nullable *_Nullable error);
    uint32_t (*_Nonnull g_dbus_error_quark)(void);
    void (*_Nonnull g_object_unref)(void *_Nonnull object);
    GList *_Nonnull (*_Nonnull g_list_append)(GList *_Nullable list, void *_Nullable data);
    void (*_Nonnull g_list_free)(GList *_Nullable list);
    GHashTable *_Nonnull (*_Nonnull g_hash_table_new)(GHashFunc _Nullable hash, GEqualFunc _Nullable equal);
    int (*_Nonnull g_hash_table_insert)(GHashTable *_Nonnull table, void *_Nullable key, void *_Nullable value);
    void (*_Nonnull g_hash_table_unref)(GHashTable *_Nonnull table);
    unsigned int (*_Nonnull g_str_hash)(const void *_Nullable key);
    int (*_Nonnull g_str_equal)(const void *_Nullable a, const void *_Nullable b);
} PassportSecret;

/// Opens GLib, GObject, GIO and then libsecret (`soname`) and fills `table` with their functions:
/// 1, the libraries staying open for the life of the process; or 0 with the reason in `error`.
int passport_secret_load(const char *_Nonnull soname, PassportSecret *_Nonnull table, char *_Nonnull error, size_t size);

/// The soname of libsecret ("libsecret-1.so.0").
const char *_Nonnull passport_secret_soname(void);

/// The Debian package that holds it ("libsecret-1-0"); it depends on GLib's, so installing it
/// brings the other three.
const char *_Nonnull passport_secret_package(void);
#endif
