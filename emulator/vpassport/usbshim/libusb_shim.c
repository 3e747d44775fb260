/*
 * TEST ONLY. The libusb-1.0 functions Debian's libccid calls, answered by an emulated USB
 * device instead of the USB bus, for `scripts/virtual-passport start DUMP --usb MODEL`.
 * Loaded with LD_PRELOAD into pcscd; libccid, pcscd and libusb themselves are not changed.
 *
 * The device lives in a Python process (emulator/vpassport/usb_device.py) reached on the UNIX
 * socket named by PASSPORT_USB_SOCKET. This file only carries transfers there and back:
 * request  = op (1 byte) | endpoint (1) | length (4, little endian) | timeout ms (4) | data
 * response = status (4, signed: bytes moved or a LIBUSB_ERROR_*) | length (4) | data
 * ops: 'D' descriptors, 'O' OUT transfer, 'I' IN transfer, 'C' control transfer.
 * Interrupt transfers run on a second connection, so that a card-movement wait never holds
 * up the bulk exchanges of an APDU. When the device is unplugged the socket refuses: the
 * device list is empty and every transfer ends LIBUSB_ERROR_NO_DEVICE, as on a real bus.
 * PASSPORT_USB_TRACE=1 prints each request on stderr (pcscd's log).
 */
#include <errno.h>
#include <libusb-1.0/libusb.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct libusb_context { int unused; };
struct libusb_device {
    uint8_t bus, address;
    uint8_t device_descriptor[18];
    uint8_t *config;
    size_t config_length;
    char strings[8][128];
};
struct libusb_device_handle { struct libusb_device *device; };

enum { BULK, INTERRUPT, CONNECTIONS };
static struct { int fd; pthread_mutex_t lock; } connections[CONNECTIONS] = {
    { -1, PTHREAD_MUTEX_INITIALIZER }, { -1, PTHREAD_MUTEX_INITIALIZER } };
static struct libusb_context the_context;
static struct libusb_device the_device;

static void drop(int which) {
    if (connections[which].fd >= 0) close(connections[which].fd);
    connections[which].fd = -1;
}

static int connect_to_device(int which) {
    if (connections[which].fd >= 0) return 0;
    const char *path = getenv("PASSPORT_USB_SOCKET");
    if (path == NULL) return LIBUSB_ERROR_NO_DEVICE;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        if (fd >= 0) close(fd);
        return LIBUSB_ERROR_NO_DEVICE;
    }
    connections[which].fd = fd;
    return 0;
}

static int exact(int fd, void *buffer, size_t length, int sending) {
    uint8_t *bytes = buffer;
    while (length > 0) {
        ssize_t n = sending ? send(fd, bytes, length, MSG_NOSIGNAL) : recv(fd, bytes, length, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        bytes += n;
        length -= (size_t)n;
    }
    return 0;
}

static void put32(uint8_t *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static uint32_t get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* One request and its response on connection `which`. `in`: where the response's data goes
 * (at most `in_size` bytes). Returns the response's status. */
static int request(int which, char op, uint8_t endpoint, const uint8_t *out, uint32_t out_length,
                   uint32_t timeout, uint8_t *in, uint32_t in_size, uint32_t *in_length) {
    pthread_mutex_lock(&connections[which].lock);
    int status = connect_to_device(which);
    if (status == 0) {
        uint8_t header[10] = { (uint8_t)op, endpoint };
        put32(header + 2, out_length);
        put32(header + 6, timeout);
        uint8_t answer[8];
        if (exact(connections[which].fd, header, sizeof header, 1) != 0
            || (out && out_length && exact(connections[which].fd, (void *)out, out_length, 1) != 0)
            || exact(connections[which].fd, answer, sizeof answer, 0) != 0) {
            drop(which);
            status = LIBUSB_ERROR_NO_DEVICE;
        } else {
            status = (int32_t)get32(answer);
            uint32_t length = get32(answer + 4);
            uint8_t *data = malloc(length ? length : 1);
            if (exact(connections[which].fd, data, length, 0) != 0) {
                drop(which);
                status = LIBUSB_ERROR_NO_DEVICE;
            } else {
                uint32_t kept = length < in_size ? length : in_size;
                if (in && kept) memcpy(in, data, kept);
                if (in_length) *in_length = kept;
            }
            free(data);
        }
    }
    pthread_mutex_unlock(&connections[which].lock);
    if (getenv("PASSPORT_USB_TRACE"))
        fprintf(stderr, "usb shim: %c ep %02x out %u in %u timeout %u -> %d\n", op, endpoint, out_length, in_size, timeout, status);
    return status;
}

/* The device's descriptors, asked again at each enumeration (the device may have changed). */
static int describe(void) {
    uint8_t blob[4096];
    uint32_t length = 0;
    if (request(BULK, 'D', 0, NULL, 0, 0, blob, sizeof blob, &length) < 0 || length < 22) return -1;
    struct libusb_device *d = &the_device;
    d->bus = blob[0];
    d->address = blob[1];
    memcpy(d->device_descriptor, blob + 2, 18);
    size_t config_length = blob[20] | blob[21] << 8;
    if (22 + config_length + 1 > length) return -1;
    free(d->config);
    d->config = malloc(config_length);
    memcpy(d->config, blob + 22, config_length);
    d->config_length = config_length;
    memset(d->strings, 0, sizeof d->strings);
    size_t at = 22 + config_length;
    unsigned count = blob[at++];
    for (unsigned i = 0; i < count && at + 2 <= length; i++) {
        unsigned index = blob[at], size = blob[at + 1];
        at += 2;
        if (index < 8 && size < 128 && at + size <= length) memcpy(d->strings[index], blob + at, size);
        at += size;
    }
    return 0;
}

int libusb_init(libusb_context **context) {
    if (context) *context = &the_context;
    return 0;
}

void libusb_exit(libusb_context *context) {
    (void)context;
    for (int i = 0; i < CONNECTIONS; i++) {
        pthread_mutex_lock(&connections[i].lock);
        drop(i);
        pthread_mutex_unlock(&connections[i].lock);
    }
}

const char *libusb_error_name(int code) {
    switch (code) {
    case LIBUSB_SUCCESS: return "LIBUSB_SUCCESS";
    case LIBUSB_ERROR_IO: return "LIBUSB_ERROR_IO";
    case LIBUSB_ERROR_NO_DEVICE: return "LIBUSB_ERROR_NO_DEVICE";
    case LIBUSB_ERROR_TIMEOUT: return "LIBUSB_ERROR_TIMEOUT";
    case LIBUSB_ERROR_PIPE: return "LIBUSB_ERROR_PIPE";
    case LIBUSB_ERROR_INTERRUPTED: return "LIBUSB_ERROR_INTERRUPTED";
    default: return "LIBUSB_ERROR_OTHER";
    }
}

ssize_t libusb_get_device_list(libusb_context *context, libusb_device ***list) {
    (void)context;
    *list = calloc(2, sizeof(libusb_device *));
    if (describe() != 0) return 0;
    (*list)[0] = &the_device;
    return 1;
}

void libusb_free_device_list(libusb_device **list, int unref) {
    (void)unref;
    free(list);
}

int libusb_get_device_descriptor(libusb_device *device, struct libusb_device_descriptor *out) {
    const uint8_t *d = device->device_descriptor;
    out->bLength = d[0];
    out->bDescriptorType = d[1];
    out->bcdUSB = d[2] | d[3] << 8;
    out->bDeviceClass = d[4];
    out->bDeviceSubClass = d[5];
    out->bDeviceProtocol = d[6];
    out->bMaxPacketSize0 = d[7];
    out->idVendor = d[8] | d[9] << 8;
    out->idProduct = d[10] | d[11] << 8;
    out->bcdDevice = d[12] | d[13] << 8;
    out->iManufacturer = d[14];
    out->iProduct = d[15];
    out->iSerialNumber = d[16];
    out->bNumConfigurations = d[17];
    return 0;
}

uint8_t libusb_get_bus_number(libusb_device *device) { return device->bus; }
uint8_t libusb_get_device_address(libusb_device *device) { return device->address; }

/* The configuration as libusb gives it: one interface, one alternate setting; the
 * class-specific descriptors after the interface (CCID's 0x21) are its `extra`. */
int libusb_get_active_config_descriptor(libusb_device *device, struct libusb_config_descriptor **out) {
    const uint8_t *c = device->config;
    size_t length = device->config_length;
    if (length < 9) return LIBUSB_ERROR_IO;
    struct libusb_config_descriptor *config = calloc(1, sizeof *config);
    struct libusb_interface *interface = calloc(1, sizeof *interface);
    struct libusb_interface_descriptor *setting = calloc(1, sizeof *setting);
    struct libusb_endpoint_descriptor *endpoints = calloc(8, sizeof *endpoints);
    uint8_t *extra = malloc(length);
    config->bLength = c[0];
    config->bDescriptorType = c[1];
    config->wTotalLength = c[2] | c[3] << 8;
    config->bNumInterfaces = 1;
    config->bConfigurationValue = c[5];
    config->iConfiguration = c[6];
    config->bmAttributes = c[7];
    config->MaxPower = c[8];
    config->interface = interface;
    interface->altsetting = setting;
    interface->num_altsetting = 1;
    setting->endpoint = endpoints;
    setting->extra = extra;
    int endpoint_count = 0, extra_length = 0;
    for (size_t at = c[0]; at + 2 <= length && c[at] >= 2 && at + c[at] <= length; at += c[at]) {
        const uint8_t *d = c + at;
        if (d[1] == LIBUSB_DT_INTERFACE && d[0] >= 9) {
            setting->bLength = d[0];
            setting->bDescriptorType = d[1];
            setting->bInterfaceNumber = d[2];
            setting->bAlternateSetting = d[3];
            setting->bNumEndpoints = d[4];
            setting->bInterfaceClass = d[5];
            setting->bInterfaceSubClass = d[6];
            setting->bInterfaceProtocol = d[7];
            setting->iInterface = d[8];
        } else if (d[1] == LIBUSB_DT_ENDPOINT && d[0] >= 7 && endpoint_count < 8) {
            struct libusb_endpoint_descriptor *e = &endpoints[endpoint_count++];
            e->bLength = d[0];
            e->bDescriptorType = d[1];
            e->bEndpointAddress = d[2];
            e->bmAttributes = d[3];
            e->wMaxPacketSize = d[4] | d[5] << 8;
            e->bInterval = d[6];
        } else if (endpoint_count == 0) {
            memcpy(extra + extra_length, d, d[0]);
            extra_length += d[0];
        }
    }
    setting->extra_length = extra_length;
    *out = config;
    return 0;
}

void libusb_free_config_descriptor(struct libusb_config_descriptor *config) {
    if (config == NULL) return;
    struct libusb_interface_descriptor *setting = (struct libusb_interface_descriptor *)config->interface->altsetting;
    free((void *)setting->endpoint);
    free((void *)setting->extra);
    free(setting);
    free((void *)config->interface);
    free(config);
}

int libusb_open(libusb_device *device, libusb_device_handle **handle) {
    *handle = calloc(1, sizeof **handle);
    (*handle)->device = device;
    return 0;
}

void libusb_close(libusb_device_handle *handle) { free(handle); }
int libusb_claim_interface(libusb_device_handle *handle, int number) { (void)handle; (void)number; return 0; }
int libusb_release_interface(libusb_device_handle *handle, int number) { (void)handle; (void)number; return 0; }

int libusb_get_string_descriptor_ascii(libusb_device_handle *handle, uint8_t index, unsigned char *data, int length) {
    if (index >= 8 || handle->device->strings[index][0] == 0) return LIBUSB_ERROR_PIPE;
    int size = (int)strlen(handle->device->strings[index]);
    if (size >= length) size = length - 1;
    memcpy(data, handle->device->strings[index], size);
    data[size] = 0;
    return size;
}

static int exchange(int which, unsigned char endpoint, unsigned char *data, int length, int *moved, unsigned timeout) {
    uint32_t got = 0;
    int status = (endpoint & LIBUSB_ENDPOINT_IN)
        ? request(which, 'I', endpoint, NULL, (uint32_t)length, timeout, data, (uint32_t)length, &got)
        : request(which, 'O', endpoint, data, (uint32_t)length, timeout, NULL, 0, NULL);
    if (moved) *moved = status < 0 ? 0 : (endpoint & LIBUSB_ENDPOINT_IN) ? (int)got : status;
    return status < 0 ? status : 0;
}

int libusb_bulk_transfer(libusb_device_handle *handle, unsigned char endpoint, unsigned char *data, int length,
                         int *transferred, unsigned int timeout) {
    (void)handle;
    return exchange(BULK, endpoint, data, length, transferred, timeout);
}

int libusb_control_transfer(libusb_device_handle *handle, uint8_t request_type, uint8_t request_code, uint16_t value,
                            uint16_t index, unsigned char *data, uint16_t length, unsigned int timeout) {
    (void)handle;
    uint8_t out[8 + 65535];
    uint8_t setup[8] = { request_type, request_code, value & 0xFF, value >> 8, index & 0xFF, index >> 8, length & 0xFF, length >> 8 };
    memcpy(out, setup, 8);
    int device_to_host = request_type & LIBUSB_ENDPOINT_IN;
    if (!device_to_host && length) memcpy(out + 8, data, length);
    uint32_t got = 0;
    int status = request(BULK, 'C', 0, out, 8 + (device_to_host ? 0 : length), timeout, device_to_host ? data : NULL, length, &got);
    return status < 0 ? status : (device_to_host ? (int)got : status);
}

/* Asynchronous transfers: libccid submits one interrupt IN transfer at a time and waits for it in
 * libusb_handle_events_completed. It is carried out there, in slices of at most 100 ms, so that
 * libusb_cancel_transfer (from another thread) ends it promptly. */
struct pending { struct libusb_transfer *transfer; volatile int cancelled; };
static struct pending pending[16];
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

struct libusb_transfer *libusb_alloc_transfer(int iso_packets) {
    return calloc(1, sizeof(struct libusb_transfer) + (size_t)iso_packets * sizeof(struct libusb_iso_packet_descriptor));
}

void libusb_free_transfer(struct libusb_transfer *transfer) { free(transfer); }

int libusb_submit_transfer(struct libusb_transfer *transfer) {
    pthread_mutex_lock(&pending_lock);
    for (int i = 0; i < 16; i++) {
        if (pending[i].transfer == NULL) {
            pending[i].transfer = transfer;
            pending[i].cancelled = 0;
            pthread_mutex_unlock(&pending_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&pending_lock);
    return LIBUSB_ERROR_BUSY;
}

int libusb_cancel_transfer(struct libusb_transfer *transfer) {
    pthread_mutex_lock(&pending_lock);
    for (int i = 0; i < 16; i++) {
        if (pending[i].transfer == transfer) pending[i].cancelled = 1;
    }
    pthread_mutex_unlock(&pending_lock);
    return 0;
}

static void finish(int slot, enum libusb_transfer_status status, int moved) {
    struct libusb_transfer *transfer = pending[slot].transfer;
    pthread_mutex_lock(&pending_lock);
    pending[slot].transfer = NULL;
    pthread_mutex_unlock(&pending_lock);
    transfer->status = status;
    transfer->actual_length = moved;
    transfer->callback(transfer);
}

int libusb_handle_events_completed(libusb_context *context, int *completed) {
    (void)context;
    int slot = -1;
    pthread_mutex_lock(&pending_lock);
    for (int i = 0; i < 16 && slot < 0; i++) {
        if (pending[i].transfer) slot = i;
    }
    pthread_mutex_unlock(&pending_lock);
    if (slot < 0) {
        usleep(10000);
        return 0;
    }
    struct libusb_transfer *transfer = pending[slot].transfer;
    unsigned waited = 0, limit = transfer->timeout ? transfer->timeout : 0xFFFFFFFFu;
    while (!(completed && *completed)) {
        if (pending[slot].cancelled) { finish(slot, LIBUSB_TRANSFER_CANCELLED, 0); return 0; }
        unsigned slice = limit - waited < 100 ? limit - waited : 100;
        int moved = 0;
        int status = exchange(INTERRUPT, transfer->endpoint, transfer->buffer, transfer->length, &moved, slice);
        if (status == 0) { finish(slot, LIBUSB_TRANSFER_COMPLETED, moved); return 0; }
        if (status == LIBUSB_ERROR_NO_DEVICE) {
            usleep(100000);  /* an unplugged device answers nothing: no busy loop */
            finish(slot, LIBUSB_TRANSFER_NO_DEVICE, 0);
            return 0;
        }
        if (status != LIBUSB_ERROR_TIMEOUT) { finish(slot, LIBUSB_TRANSFER_ERROR, 0); return 0; }
        waited += slice;
        if (waited >= limit) { finish(slot, LIBUSB_TRANSFER_TIMED_OUT, 0); return 0; }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * The libusb-0.1 API, which Debian's libnfc6 drivers (acr122_usb, pn53x_usb) call: the same
 * device and the same transfers. The bus list holds one bus ("001") with the device when it is
 * plugged in; a bulk read that times out gives -ETIMEDOUT, an unplugged device -ENODEV.
 * ------------------------------------------------------------------------------------------ */
#include <usb.h>

static struct usb_bus legacy_bus;
static struct usb_device legacy_device;
static struct usb_config_descriptor legacy_config;
static struct usb_interface legacy_interface;
static struct usb_interface_descriptor legacy_setting;
static struct usb_endpoint_descriptor legacy_endpoints[8];
struct usb_dev_handle { struct usb_device *device; };

void usb_init(void) {}

int usb_find_busses(void) {
    strcpy(legacy_bus.dirname, "001");
    return 1;
}

/* The device as libusb-0.1 shows it: descriptor and configuration filled from the emulator. */
int usb_find_devices(void) {
    legacy_bus.devices = NULL;
    if (describe() != 0) return 0;
    struct libusb_device_descriptor d;
    libusb_get_device_descriptor(&the_device, &d);
    struct usb_device *device = &legacy_device;
    memset(device, 0, sizeof *device);
    snprintf(device->filename, sizeof device->filename, "%03u", the_device.address);
    device->bus = &legacy_bus;
    device->devnum = the_device.address;
    memcpy(&device->descriptor, &d, sizeof device->descriptor);
    struct libusb_config_descriptor *config = NULL;
    libusb_get_active_config_descriptor(&the_device, &config);
    const struct libusb_interface_descriptor *setting = &config->interface->altsetting[0];
    legacy_config = (struct usb_config_descriptor){ config->bLength, config->bDescriptorType, config->wTotalLength, 1,
                                                    config->bConfigurationValue, config->iConfiguration, config->bmAttributes,
                                                    config->MaxPower, &legacy_interface, NULL, 0 };
    legacy_interface = (struct usb_interface){ &legacy_setting, 1 };
    legacy_setting = (struct usb_interface_descriptor){ setting->bLength, setting->bDescriptorType, setting->bInterfaceNumber,
                                                        setting->bAlternateSetting, setting->bNumEndpoints, setting->bInterfaceClass,
                                                        setting->bInterfaceSubClass, setting->bInterfaceProtocol, setting->iInterface,
                                                        legacy_endpoints, NULL, 0 };
    for (int i = 0; i < setting->bNumEndpoints && i < 8; i++) {
        const struct libusb_endpoint_descriptor *e = &setting->endpoint[i];
        legacy_endpoints[i] = (struct usb_endpoint_descriptor){ e->bLength, e->bDescriptorType, e->bEndpointAddress, e->bmAttributes,
                                                                e->wMaxPacketSize, e->bInterval, 0, 0, NULL, 0 };
    }
    libusb_free_config_descriptor(config);
    device->config = &legacy_config;
    legacy_bus.devices = device;
    return 1;
}

struct usb_bus *usb_get_busses(void) { return &legacy_bus; }

usb_dev_handle *usb_open(struct usb_device *device) {
    usb_dev_handle *handle = calloc(1, sizeof *handle);
    handle->device = device;
    return handle;
}

int usb_close(usb_dev_handle *handle) { free(handle); return 0; }
int usb_set_configuration(usb_dev_handle *handle, int configuration) { (void)handle; (void)configuration; return 0; }
int usb_claim_interface(usb_dev_handle *handle, int number) { (void)handle; (void)number; return 0; }
int usb_release_interface(usb_dev_handle *handle, int number) { (void)handle; (void)number; return 0; }
int usb_set_altinterface(usb_dev_handle *handle, int setting) { (void)handle; (void)setting; return 0; }
int usb_reset(usb_dev_handle *handle) { (void)handle; return 0; }

int usb_get_string_simple(usb_dev_handle *handle, int index, char *buffer, size_t length) {
    (void)handle;
    if (index <= 0 || index >= 8 || the_device.strings[index][0] == 0 || length == 0) return -EPIPE;
    snprintf(buffer, length, "%s", the_device.strings[index]);
    return (int)strlen(buffer);
}

static int legacy_status(int status) {
    if (status == LIBUSB_ERROR_TIMEOUT) return -ETIMEDOUT;
    if (status == LIBUSB_ERROR_NO_DEVICE) return -ENODEV;
    return status < 0 ? -EIO : status;
}

int usb_bulk_write(usb_dev_handle *handle, int endpoint, const char *bytes, int size, int timeout) {
    (void)handle;
    int moved = 0;
    int status = exchange(BULK, (unsigned char)endpoint, (unsigned char *)bytes, size, &moved, (unsigned)timeout);
    return status < 0 ? legacy_status(status) : moved;
}

int usb_bulk_read(usb_dev_handle *handle, int endpoint, char *bytes, int size, int timeout) {
    (void)handle;
    int moved = 0;
    int status = exchange(BULK, (unsigned char)(endpoint | 0x80), (unsigned char *)bytes, size, &moved, (unsigned)timeout);
    return status < 0 ? legacy_status(status) : moved;
}

char *usb_strerror(void) { return "emulated USB device error"; }
