import CardIO
import Testing
import TestSupport

@Suite struct APDUEncoding {
    @Test func shortCases() {
        #expect(CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8).encoded() == hex("0084000008"))
        #expect(CommandAPDU(ins: 0xA4, p1: 4, p2: 0x0C, data: hex("A0000002471001")).encoded() == hex("00A4040C07A0000002471001"))
        #expect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256).encoded() == hex("00B0000000"))
        #expect(CommandAPDU(ins: 0x82, p1: 0, p2: 0, data: [1, 2], ne: 40).encoded() == hex("00820000020102 28"))
        #expect(CommandAPDU(ins: 0x20, p1: 0, p2: 0).encoded() == hex("00200000"))
    }

    @Test func extendedCases() {
        #expect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 65536).encoded() == hex("00B00000000000"))
        #expect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 1000).encoded() == hex("00B000000003E8"))
        let data = [UInt8](repeating: 7, count: 300)
        #expect(CommandAPDU(ins: 0x2A, p1: 0, p2: 0, data: data, ne: 65536).encoded() == hex("002A0000 00012C") + data + [0, 0])
        #expect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 8).encoded(forceExtended: true) == hex("00B00000000008"))
    }

    @Test func encodeParseRoundTrip() throws {
        let commands = [
            CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8),
            CommandAPDU(ins: 0xA4, p1: 2, p2: 0x0C, data: [1, 0x1E]),
            CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 65536),
            CommandAPDU(ins: 0xB1, p1: 0, p2: 0, data: [UInt8](repeating: 1, count: 600), ne: 300),
            CommandAPDU(ins: 0x20, p1: 0, p2: 0),
        ]
        for c in commands { #expect(try CommandAPDU(encoded: c.encoded()) == c) }
        #expect(throws: CardIOError.self) { try CommandAPDU(encoded: hex("00B000")) }
        #expect(throws: CardIOError.self) { try CommandAPDU(encoded: hex("00A4040C05A000")) }
    }

    @Test func statusWords() throws {
        let r = try ResponseAPDU(encoded: hex("0102 6282"))
        #expect(r.data == [1, 2])
        #expect(r.status == .endOfFileWarning)
        #expect(StatusWord(0x63C2).description == "63C2 (verification failed, 2 tries left)")
        #expect(throws: CardIOError.malformedResponse(length: 1)) { try ResponseAPDU(encoded: [0x90]) }
    }
}

@Suite struct AnswerToResetParsing {
    @Test func extendedLengthFromCardCapabilities() {
        // T=1 ATR with historical bytes 80 73 00 00 E0 (card capabilities: extended Lc/Le in byte 3).
        let withExtended = AnswerToReset(hex("3B 85 80 01 80 73 00 00 E0 00")) // TCK is not checked
        #expect(withExtended.historicalBytes == hex("8073 0000E0"))
        #expect(withExtended.supportsExtendedLength)
        let without = AnswerToReset(hex("3B 85 80 01 80 73 00 00 80 00"))
        #expect(!without.supportsExtendedLength)
        #expect(!AnswerToReset(hex("3B 00")).supportsExtendedLength)
        #expect(!AnswerToReset([]).supportsExtendedLength)
    }
}

@Suite struct ISO7816ChannelBehaviour {
    @Test func collectsGetResponseChains() throws {
        let transport = ScriptedTransport([
            .init(hex("00B0000000"), hex("0102 6103")),
            .init(hex("00C0000003"), hex("030405 6102")),
            .init(hex("00C0000002"), hex("0607 9000")),
        ])
        let channel = ISO7816Channel(transport: transport)
        let r = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256))
        #expect(r.data == [1, 2, 3, 4, 5, 6, 7])
        #expect(r.status == .success)
        #expect(channel.apduCount == 3)
        try transport.assertComplete()
    }

    @Test func repeatsWithCorrectedLe() throws {
        let transport = ScriptedTransport([
            .init(hex("00B0000000"), hex("6C10")),
            .init(hex("00B0000010"), [UInt8](repeating: 9, count: 16) + hex("9000")),
        ])
        let channel = ISO7816Channel(transport: transport)
        let r = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256))
        #expect(r.data.count == 16)
        try transport.assertComplete()
    }

    @Test func wrongLengthIsNotRepeatedWhenRetriesAreOff() throws {
        // Under secure messaging a repeated command would reuse the send-sequence counter.
        let transport = ScriptedTransport([.init(hex("00B0000000"), hex("6C10"))])
        let channel = ISO7816Channel(transport: transport)
        channel.retriesWrongLength = false
        let r = try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256))
        #expect(r.status == StatusWord(0x6C10))
        try transport.assertComplete()
    }

    @Test func refusesExtendedLengthWithoutSupport() {
        let channel = ISO7816Channel(transport: ScriptedTransport([]))
        #expect(throws: CardIOError.extendedLengthUnsupported) { try channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 1000)) }
    }
}

/// The scripted card itself: it must catch every departure from its script, or the reader
/// tests built on it would prove nothing.
@Suite struct ScriptedTransportBehaviour {
    @Test func playsTheScriptInOrder() throws {
        let transport = ScriptedTransport([.init(hex("00A4040C07A0000002471001"), hex("9000")),
                                           .init(hex("0084000008"), hex("0102030405060708 9000"))],
                                          atr: hex("3B 85 80 01 80 73 00 00 E0 00"), readerName: "Test reader 00")
        #expect(try transport.transmit(raw: hex("00A4040C07A0000002471001")) == hex("9000"))
        #expect(transport.remaining == 1)
        #expect(try transport.transmit(raw: hex("0084000008")) == hex("0102030405060708 9000"))
        try transport.assertComplete()
        #expect(transport.received == [hex("00A4040C07A0000002471001"), hex("0084000008")])
        #expect(transport.readerName == "Test reader 00")
        #expect(ISO7816Channel(transport: transport).supportsExtendedLength, "the ATR given is the one the channel sees")
    }

    @Test func anUnexpectedCommandFailsNamingStepExpectedAndActual() throws {
        let transport = ScriptedTransport([.init(hex("00A4040C07A0000002471001"), hex("9000")),
                                           .init(hex("0084000008"), hex("9000"))])
        _ = try transport.transmit(raw: hex("00A4040C07A0000002471001"))
        let error = #expect(throws: ScriptError.self) { try transport.transmit(raw: hex("00B0000000")) }
        #expect(error == .unexpectedCommand(step: 1, expected: "0084000008", actual: "00B0000000"))
        #expect(error?.description == "Script step 1: expected command 0084000008, got 00B0000000.")
        #expect(transport.remaining == 1, "a refused command does not consume its step")
    }

    @Test func aCommandAfterTheEndFails() throws {
        let transport = ScriptedTransport([.init(hex("0084000008"), hex("9000"))])
        _ = try transport.transmit(raw: hex("0084000008"))
        #expect(throws: ScriptError.beyondScript(step: 1, actual: "0084000008")) { try transport.transmit(raw: hex("0084000008")) }
    }

    @Test func anUnconsumedScriptIsDetected() throws {
        let transport = ScriptedTransport([.init(hex("0084000008"), hex("9000")), .init(hex("00B0000000"), hex("9000"))])
        _ = try transport.transmit(raw: hex("0084000008"))
        let error = #expect(throws: ScriptError.self) { try transport.assertComplete() }
        #expect(error == .unconsumed(remaining: 1, next: 1, expected: "00B0000000"))
    }

    @Test func aViolationTheCallerSwallowedIsStillReported() throws {
        let transport = ScriptedTransport([.init(hex("0084000008"), hex("9000"))])
        _ = try? transport.transmit(raw: hex("0084000009"))
        _ = try transport.transmit(raw: hex("0084000008"))
        #expect(throws: ScriptError.unexpectedCommand(step: 0, expected: "0084000008", actual: "0084000009")) {
            try transport.assertComplete()
        }
    }

    @Test func prefixAndPredicateStepsMatchCommandsWithRandomBytes() throws {
        let transport = ScriptedTransport([
            .prefix(hex("0082000028"), hex("9000")),
            .matching("INTERNAL AUTHENTICATE with an 8-byte challenge", { $0.count == 14 && $0[1] == 0x88 }) { command in
                Array(command[5..<13].reversed()) + hex("9000") // the answer may depend on the command
            },
        ])
        #expect(try transport.transmit(raw: hex("0082000028") + [UInt8](repeating: 0xAB, count: 40) + [0x28]) == hex("9000"))
        #expect(try transport.transmit(raw: hex("0088000008 0102030405060708 00")) == hex("0807060504030201 9000"))
        try transport.assertComplete()
        let refused = ScriptedTransport([.prefix(hex("0082000028"), hex("9000"))])
        #expect(throws: ScriptError.unexpectedCommand(step: 0, expected: "0082000028…", actual: "0084000008")) {
            try refused.transmit(raw: hex("0084000008"))
        }
    }

    @Test func anAnswerMayThrowLikeATransport() {
        let transport = ScriptedTransport([.matching("any command", { _ in true }) { _ in throw CardIOError.cardRemoved }])
        #expect(throws: CardIOError.cardRemoved) { try transport.transmit(raw: hex("00B0000000")) }
    }
}
