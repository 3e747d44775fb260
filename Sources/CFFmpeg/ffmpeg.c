#include "CFFmpeg.h"
#include <stdio.h>
#include <CLibraryLoader.h>
#include <pthread.h>

#define STRINGIFY(x) #x
#define VERSION(x) STRINGIFY(x)
// Dependencies first: each library finds the ones before it already loaded.
#define LIBRARIES(X) X(avutil, LIBAVUTIL) X(swscale, LIBSWSCALE) X(avcodec, LIBAVCODEC) \
                     X(avformat, LIBAVFORMAT) X(avdevice, LIBAVDEVICE)
#define SONAME(name, macro) "lib" #name ".so." VERSION(macro##_VERSION_MAJOR),
#define PACKAGE(name, macro) "lib" #name VERSION(macro##_VERSION_MAJOR) " "

static const char *const sonames[] = { LIBRARIES(SONAME) };
enum { library_count = sizeof sonames / sizeof *sonames };
static PassportFFmpeg table;
static char failure[512];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handles[library_count];
    if (passport_open_libraries(sonames, library_count, handles, failure, sizeof failure) != 0) return;
#define RESOLVE(name) if (!PASSPORT_RESOLVE(table, handles, library_count, name, failure, sizeof failure)) return;
    PASSPORT_FFMPEG_FUNCTIONS(RESOLVE)
#undef RESOLVE
    loaded = 1;
}

const PassportFFmpeg *passport_ffmpeg_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded) return &table;
    snprintf(error, size, "%s", failure);
    return NULL;
}

const char *passport_ffmpeg_packages(void) {
    static const char packages[] = LIBRARIES(PACKAGE);
    return packages;
}

int passport_frame_to_grey(const PassportFFmpeg *ffmpeg, struct SwsContext **context, const AVFrame *frame,
                           uint8_t *grey, int stride) {
    *context = ffmpeg->sws_getCachedContext(*context, frame->width, frame->height, (enum AVPixelFormat)frame->format,
                                            frame->width, frame->height, AV_PIX_FMT_GRAY8, SWS_POINT, NULL, NULL, NULL);
    if (*context == NULL) return -1;
    uint8_t *planes[4] = { grey, NULL, NULL, NULL };
    int strides[4] = { stride, 0, 0, 0 };
    return ffmpeg->sws_scale(*context, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
}
