/*
 * Smoke test of the emulated PN532 (pn532.py) through the real libnfc.
 *
 *   gcc -O2 -Wall -o "$STATE/nfc_smoke" scripts/vpassport/nfc_smoke.c $(pkg-config --cflags --libs libnfc)
 *   "$STATE/nfc_smoke" pn532_uart:/dev/pts/N
 *
 * Opens the device, selects the ISO 14443-A target, then sends plain APDUs:
 * SELECT eMRTD AID and GET CHALLENGE with nfc_initiator_transceive_bytes
 * (libnfc's "easy framing" = PN532 InDataExchange), SELECT MF + READ BINARY of
 * EF.CardAccess with short and extended Le, a 307-byte extended command that
 * needs PN532 command chaining (MI) through pn53x_transceive, and the
 * presence check. Exit status 0 when every expectation holds.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nfc/nfc.h>

/* Exported by libnfc.so.6 but not in its public headers (libnfc/chips/pn53x.h):
 * sends one PN532 command (first byte = command code) and returns the answer
 * after the command code; follows InDataExchange MI chaining of the answer into
 * pbtRx as far as szRxLen allows. */
int pn53x_transceive(nfc_device *pnd, const uint8_t *pbtTx, const size_t szTx,
                     uint8_t *pbtRx, const size_t szRxLen, int timeout);

#define PN532_MAX_DATA_OUT 262          /* InDataExchange DataOut per frame */

static int failures;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void hex(const char *label, const uint8_t *b, size_t n)
{
  printf("%s", label);
  for (size_t i = 0; i < n; i++)
    printf("%02X", b[i]);
  printf("\n");
}

static void check(bool ok, const char *what)
{
  printf("  %s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok)
    failures++;
}

static unsigned sw(const uint8_t *r, int n)
{
  return n >= 2 ? (r[n - 2] << 8) | r[n - 1] : 0;
}

/* A whole APDU through raw PN532 InDataExchange frames: the command in pieces
 * of at most 262 bytes with the MI bit (0x40) in Tg on all but the last; the
 * PN532 answers each chained piece with a bare status byte. The answer comes
 * back in frames with MI in the status byte, which pn53x_transceive follows by
 * itself (it sends InDataExchange Tg again) into our buffer. */
static int apdu_chained(nfc_device *pnd, const uint8_t *c, size_t n, uint8_t *r, size_t rmax)
{
  static uint8_t rx[65536 + 16];
  uint8_t frame[2 + PN532_MAX_DATA_OUT];
  size_t off = 0;
  for (;;) {
    size_t piece = n - off > PN532_MAX_DATA_OUT ? PN532_MAX_DATA_OUT : n - off;
    bool more = off + piece < n;
    frame[0] = 0x40;                     /* InDataExchange */
    frame[1] = 0x01 | (more ? 0x40 : 0); /* target 1, MI */
    memcpy(frame + 2, c + off, piece);
    int res = pn53x_transceive(pnd, frame, piece + 2, rx, sizeof(rx), 5000);
    if (res < 0)
      return res;
    off += piece;
    if (more)
      continue;
    if (res < 1 || (size_t)(res - 1) > rmax)
      return NFC_EOVFLOW;
    memcpy(r, rx + 1, res - 1);          /* rx[0] is the status byte */
    return res - 1;
  }
}

int main(int argc, char *argv[])
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s pn532_uart:/dev/pts/N\n", argv[0]);
    return 2;
  }
  nfc_context *ctx;
  nfc_init(&ctx);
  if (!ctx) {
    fprintf(stderr, "nfc_init failed\n");
    return 2;
  }
  double t0 = now();
  nfc_device *pnd = nfc_open(ctx, argv[1]);
  if (!pnd) {
    fprintf(stderr, "nfc_open(%s) failed\n", argv[1]);
    nfc_exit(ctx);
    return 2;
  }
  double t1 = now();
  if (nfc_initiator_init(pnd) < 0) {
    nfc_perror(pnd, "nfc_initiator_init");
    return 2;
  }
  double t2 = now();
  printf("device %s (%s): nfc_open %.0f ms, nfc_initiator_init %.0f ms\n",
         nfc_device_get_name(pnd), nfc_device_get_connstring(pnd), (t1 - t0) * 1e3, (t2 - t1) * 1e3);

  const nfc_modulation nm = { .nmt = NMT_ISO14443A, .nbr = NBR_106 };
  nfc_target nt;
  int res = nfc_initiator_select_passive_target(pnd, nm, NULL, 0, &nt);
  double t3 = now();
  check(res > 0, "nfc_initiator_select_passive_target: ISO 14443-A target");
  if (res <= 0) {
    nfc_perror(pnd, "select");
    return 1;
  }
  printf("  select %.0f ms\n", (t3 - t2) * 1e3);
  hex("  ATQA ", nt.nti.nai.abtAtqa, 2);
  printf("  SAK  %02X\n", nt.nti.nai.btSak);
  hex("  UID  ", nt.nti.nai.abtUid, nt.nti.nai.szUidLen);
  hex("  ATS  ", nt.nti.nai.abtAts, nt.nti.nai.szAtsLen);   /* without TL */
  check(nt.nti.nai.btSak & 0x20, "SAK says ISO 14443-4");

  uint8_t r[65536 + 2];
  const uint8_t select_aid[] = { 0x00, 0xA4, 0x04, 0x0C, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01 };
  res = nfc_initiator_transceive_bytes(pnd, select_aid, sizeof(select_aid), r, sizeof(r), 2000);
  if (res >= 0) hex("  SELECT eMRTD AID -> ", r, res);
  check(res == 2 && sw(r, res) == 0x9000, "SELECT eMRTD AID -> 9000");

  const uint8_t challenge[] = { 0x00, 0x84, 0x00, 0x00, 0x08 };
  res = nfc_initiator_transceive_bytes(pnd, challenge, sizeof(challenge), r, sizeof(r), 2000);
  if (res >= 0) hex("  GET CHALLENGE -> ", r, res);
  check(res == 10 && sw(r, res) == 0x9000, "GET CHALLENGE -> 8 bytes + 9000");

  const uint8_t challenge_le0[] = { 0x00, 0x84, 0x00, 0x00, 0x00 };
  res = nfc_initiator_transceive_bytes(pnd, challenge_le0, sizeof(challenge_le0), r, sizeof(r), 2000);
  if (res >= 0) hex("  GET CHALLENGE Le 00 -> ", r, res);
  check(res == 2 && sw(r, res) == 0x6700, "GET CHALLENGE Le 00 -> 6700 (the chip wants Le 08)");

  const uint8_t select_mf[] = { 0x00, 0xA4, 0x00, 0x0C, 0x02, 0x3F, 0x00 };
  res = nfc_initiator_transceive_bytes(pnd, select_mf, sizeof(select_mf), r, sizeof(r), 2000);
  check(res == 2 && sw(r, res) == 0x9000, "SELECT MF -> 9000");

  const uint8_t read_ca[] = { 0x00, 0xB0, 0x9C, 0x00, 0x00 };          /* SFI 1C, Le 256 */
  res = nfc_initiator_transceive_bytes(pnd, read_ca, sizeof(read_ca), r, sizeof(r), 2000);
  if (res >= 0) {
    printf("  READ BINARY EF.CardAccess (short Le) -> %d data bytes, SW %04X\n", res - 2, sw(r, res));
    check(sw(r, res) == 0x9000 || sw(r, res) == 0x6282 || sw(r, res) == 0x6A82,
          "READ BINARY EF.CardAccess (9000/6282, or 6A82 without PACE)");
  } else {
    check(false, "READ BINARY EF.CardAccess");
  }
  int short_len = res;

  const uint8_t read_ca_ext[] = { 0x00, 0xB0, 0x9C, 0x00, 0x00, 0x00, 0x00 };  /* extended Le 65536 */
  res = apdu_chained(pnd, read_ca_ext, sizeof(read_ca_ext), r, sizeof(r));
  if (res >= 0) {
    printf("  extended READ BINARY EF.CardAccess (pn53x_transceive) -> %d data bytes, SW %04X\n",
           res - 2, sw(r, res));
    check(res == short_len, "extended READ BINARY gives the same as the short one");
  } else {
    check(false, "extended READ BINARY through pn53x_transceive");
  }

  /* 307 bytes: SELECT by DF name with a 300-byte name in extended form. More
   * than one InDataExchange frame takes, so it needs MI chaining; the chip
   * answers 6A82 (no such application). Never give nfc_initiator_transceive_bytes
   * more than 262 bytes: libnfc 1.8.0 copies them into a 264-byte stack buffer. */
  uint8_t long_cmd[7 + 300] = { 0x00, 0xA4, 0x04, 0x0C, 0x00, 0x01, 0x2C };
  memset(long_cmd + 7, 0xA5, 300);
  res = apdu_chained(pnd, long_cmd, sizeof(long_cmd), r, sizeof(r));
  if (res >= 0) hex("  307-byte SELECT (MI chained) -> ", r, res);
  check(res == 2 && sw(r, res) == 0x6A82, "307-byte command through MI chaining -> 6A82");

  res = nfc_initiator_target_is_present(pnd, NULL);
  check(res == NFC_SUCCESS, "nfc_initiator_target_is_present (R(NAK) through InCommunicateThru)");

  res = nfc_initiator_transceive_bytes(pnd, select_aid, sizeof(select_aid), r, sizeof(r), 2000);
  check(res == 2 && sw(r, res) == 0x9000, "SELECT eMRTD AID after the presence check -> 9000");

  double t4 = now();
  nfc_close(pnd);
  nfc_exit(ctx);
  printf("APDUs %.0f ms, close %.0f ms\n", (t4 - t3) * 1e3, (now() - t4) * 1e3);
  printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
