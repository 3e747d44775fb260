import CZlib

/// PNG (ISO/IEC 15948) of an 8-bit grey image: signature, IHDR, one IDAT, IEND. The image data is
/// compressed by the system's zlib (opened with dlopen, `CZlib`; Debian's zlib1g is always there):
/// a QR code's flat runs shrink to about 1% of their size. Without zlib it is a zlib stream of
/// stored (uncompressed) deflate blocks, which every PNG reader inflates just the same.
enum PNGWriter {
    static func grey(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        var scanlines: [UInt8] = []
        scanlines.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            scanlines.append(0) // filter type None
            scanlines += pixels[(y * width)..<((y + 1) * width)]
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 0, 0, 0, 0] // depth 8, colour type 0 (grey), deflate, adaptive filters, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("IDAT", zlibCompressed(scanlines) ?? zlibStored(scanlines)) + chunk("IEND", [])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// The zlib stream from the system's zlib, or nil when it cannot be opened.
    static func zlibCompressed(_ data: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: passport_deflate_bound(data.count))
        var written = 0
        var reason = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { passport_deflate_zlib(input.baseAddress!, input.count, $0.baseAddress!, $0.count, &written, &reason, reason.count) }
        }
        return status == 0 ? Array(output.prefix(written)) : nil
    }

    /// RFC 1950 header (deflate, 32 KiB window, no dictionary), RFC 1951 stored blocks of at most
    /// 65535 bytes, then the Adler-32 of the data.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let length = min(65535, data.count - start)
            let last: UInt8 = start + length == data.count ? 1 : 0
            out.append(last) // BFINAL, BTYPE 00 (stored)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[start..<(start + length)]
            start += length
        } while start < data.count
        return out + bigEndian(adler32(data))
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    /// CRC-32 of ISO 3309 (polynomial 0xEDB88320, reflected), as PNG's chunks carry it.
    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
