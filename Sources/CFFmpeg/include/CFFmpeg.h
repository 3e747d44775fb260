#ifndef PASSPORT_CFFMPEG_H
#define PASSPORT_CFFMPEG_H
// FFmpeg from Debian (libavformat, libavcodec, libswscale, libavdevice, libavutil): video files
// and V4L2 cameras decoded to 8-bit grey for the MRZ scanner (VideoFrames). The libraries are
// not linked: `passport_ffmpeg_load` opens them when --camera is used, so that no other command
// loads a desktop media stack. Their headers (the -dev packages) give the types and signatures.
#include <errno.h>
#include <stddef.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

#define PASSPORT_FFMPEG_FUNCTIONS(X)                                                               \
    X(av_log_set_level) X(av_strerror) X(av_frame_alloc) X(av_frame_free) X(av_frame_unref)          \
    X(sws_getCachedContext) X(sws_scale) X(sws_freeContext)                                          \
    X(avcodec_alloc_context3) X(avcodec_free_context) X(avcodec_parameters_to_context)               \
    X(avcodec_open2) X(avcodec_send_packet) X(avcodec_receive_frame)                                 \
    X(av_packet_alloc) X(av_packet_free) X(av_packet_unref)                                          \
    X(avformat_open_input) X(avformat_find_stream_info) X(av_find_best_stream) X(av_read_frame)      \
    X(avformat_close_input) X(av_find_input_format) X(avdevice_register_all)

/// FFmpeg's functions that the toolkit calls, each typed as FFmpeg's header declares it.
typedef struct PassportFFmpeg {
#define PASSPORT_FFMPEG_FIELD(name) __typeof__(name) *_Nonnull name;
    PASSPORT_FFMPEG_FUNCTIONS(PASSPORT_FFMPEG_FIELD)
#undef PASSPORT_FFMPEG_FIELD
} PassportFFmpeg;

/// Opens the FFmpeg libraries of the major versions this program was built against (once; later
/// calls return the same table). NULL when one is missing, with the reason in `error`.
const PassportFFmpeg *_Nullable passport_ffmpeg_load(char *_Nonnull error, size_t size);

/// The Debian packages that hold those libraries, space-separated ("libavformat59 …").
const char *_Nonnull passport_ffmpeg_packages(void);

// FFmpeg's error codes are macros Swift cannot import.
static inline int passport_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int passport_averror_eof(void) { return AVERROR_EOF; }

/// Converts a decoded frame (any pixel format) to 8-bit grey rows of `stride` bytes at `grey`
/// with libswscale; `context` is reused between frames of the same size and format.
/// Returns the number of rows written, or a negative value on failure.
int passport_frame_to_grey(const PassportFFmpeg *_Nonnull ffmpeg, struct SwsContext *_Nullable *_Nonnull context,
                           const AVFrame *_Nonnull frame, uint8_t *_Nonnull grey, int stride);
#endif
