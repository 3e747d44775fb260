/// ISO/IEC 9797-1 padding method 2: append 0x80, then zeros to a multiple of `blockSize`.
public func padISO9797(_ data: some Collection<UInt8>, blockSize: Int) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(data.count + blockSize)
    out += data
    out.append(0x80)
    while out.count % blockSize != 0 { out.append(0) }
    return out
}

/// Removes ISO/IEC 9797-1 method 2 padding, or throws when it is malformed.
public func unpadISO9797(_ data: [UInt8]) throws -> [UInt8] {
    guard let marker = data.lastIndex(where: { $0 != 0 }), data[marker] == 0x80 else {
        throw SecurityError.badPadding
    }
    return Array(data[..<marker])
}
