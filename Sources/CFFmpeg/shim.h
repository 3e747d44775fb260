#ifndef PASSPORT_CFFMPEG_SHIM_H
#define PASSPORT_CFFMPEG_SHIM_H
// FFmpeg from Debian (libavformat, libavcodec, libswscale, libavdevice, libavutil): video files
// and V4L2 cameras decoded to 8-bit grey for the MRZ scanner (VideoFrames).
#include <errno.h>
#include <libavdevice/avdevice.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

// FFmpeg's error codes are macros Swift cannot import.
static inline int passport_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int passport_averror_eof(void) { return AVERROR_EOF; }

// Converts a decoded frame (any pixel format) to 8-bit grey rows of `stride` bytes at `grey`
// with libswscale; `context` is reused between frames of the same size and format.
// Returns the number of rows written, or a negative value on failure.
static inline int passport_frame_to_grey(struct SwsContext **context, const AVFrame *frame,
                                         uint8_t *grey, int stride) {
    *context = sws_getCachedContext(*context, frame->width, frame->height, (enum AVPixelFormat)frame->format,
                                    frame->width, frame->height, AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
    if (*context == NULL) return -1;
    uint8_t *planes[4] = { grey, NULL, NULL, NULL };
    int strides[4] = { stride, 0, 0, 0 };
    return sws_scale(*context, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
}
#endif
