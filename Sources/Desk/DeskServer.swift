import FoundationEssentials
import LDS
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The desk's HTTP/1.1 server (SwiftNIO), on the loopback interface only: every request goes
/// through `DeskGuard`, then to `DeskApp` on a thread pool (OCR and verification take CPU time
/// that must not stall the event loop); `/api/events` stays open as a server-sent event stream of
/// `DeskState`'s snapshots.
public final class DeskServer: Sendable {
    /// The addresses it may listen on; anything else is refused before binding.
    public static let loopback = ["127.0.0.1", "::1"]
    /// The largest request body: a whole dump as JSON (base64) or a zip, with room for names.
    public static let maxBody = FileSizeLimits.dumpFolder / 3 * 4 + (1 << 20)

    public let app: DeskApp
    public let port: Int
    /// The addresses actually listened on (::1 is left out on a machine without IPv6).
    public let addresses: [String]
    let security: DeskGuard
    let group: MultiThreadedEventLoopGroup
    let pool: NIOThreadPool
    let channels: [Channel]

    /// Binds `hosts` (each must be loopback) on `port` (0: a free port, the same on every host).
    public static func start(app: DeskApp, hosts: [String] = loopback, port: Int) throws -> DeskServer {
        guard let first = hosts.first else { throw DeskServerError.notLoopback("") }
        for host in hosts where !loopback.contains(host) { throw DeskServerError.notLoopback(host) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        let holder = Mutex<DeskGuard?>(nil)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(DeskHTTPHandler(app: app, pool: pool, security: holder.withLock { $0! }))
                }
            }
        var channels: [Channel] = []
        var addresses: [String] = []
        do {
            let channel = try bootstrap.bind(host: first, port: port).wait()
            channels.append(channel)
            addresses.append(first)
            let bound = channel.localAddress?.port ?? port
            for host in hosts.dropFirst() {
                // A machine without IPv6 has no ::1; 127.0.0.1 is enough there.
                if let extra = try? bootstrap.bind(host: host, port: bound).wait() {
                    channels.append(extra)
                    addresses.append(host)
                }
            }
            let security = DeskGuard(port: bound)
            holder.withLock { $0 = security }
            let server = DeskServer(app: app, port: bound, addresses: addresses, security: security, group: group, pool: pool, channels: channels)
            // The idle clear: looked at every second, decided by DeskState.
            group.next().scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in app.state.clearIfIdle() }
            return server
        } catch {
            for channel in channels { try? channel.close().wait() }
            try? group.syncShutdownGracefully()
            try? pool.syncShutdownGracefully()
            throw DeskServerError.cannotListen(host: first, port: port, reason: "\(error)")
        }
    }

    init(app: DeskApp, port: Int, addresses: [String], security: DeskGuard, group: MultiThreadedEventLoopGroup, pool: NIOThreadPool, channels: [Channel]) {
        self.app = app
        self.port = port
        self.addresses = addresses
        self.security = security
        self.group = group
        self.pool = pool
        self.channels = channels
    }

    /// The address with the token, to open once.
    public var address: String { security.address }

    public func stop() {
        for channel in channels { try? channel.close().wait() }
        try? group.syncShutdownGracefully()
        try? pool.syncShutdownGracefully()
    }
}

public enum DeskServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case notLoopback(String)
    case cannotListen(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .notLoopback(let host):
            return "The desk listens on the loopback interface only (127.0.0.1, ::1), not on \(host.isEmpty ? "no address" : host): it holds passport data. "
                + "To use it from another machine, forward the port over SSH: ssh -L 8080:127.0.0.1:PORT THIS-HOST, then open the printed address with port 8080."
        case .cannotListen(let host, let port, let reason):
            return "Cannot listen on \(host) port \(port): \(reason). Give another port with --port (0 picks a free one)."
        }
    }
}

/// One connection: collects a request (its body bounded), answers it, or turns into an event stream.
final class DeskHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let app: DeskApp
    let pool: NIOThreadPool
    let security: DeskGuard
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    private var subscription: Int?

    init(app: DeskApp, pool: NIOThreadPool, security: DeskGuard) {
        self.app = app
        self.pool = pool
        self.security = security
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            tooLarge = head.headers.first(name: "content-length").flatMap(Int.init).map { $0 > DeskServer.maxBody } ?? false
        case .body(var chunk):
            guard !tooLarge else { return }
            if body.count + chunk.readableBytes > DeskServer.maxBody {
                tooLarge = true
                body = []
            } else {
                body += chunk.readBytes(length: chunk.readableBytes) ?? []
            }
        case .end:
            guard let head else { return }
            self.head = nil
            let channel = context.channel
            if tooLarge {
                Self.respond(channel, head, .error(413, "too_large", "Refused: the request is larger than the desk takes (\(FileSizeLimits.describe(DeskServer.maxBody)))."), close: true)
                return
            }
            let request = DeskRequest(method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
            body = []
            dispatch(request, head: head, channel: channel)
        }
    }

    func dispatch(_ request: DeskRequest, head: HTTPRequestHead, channel: Channel) {
        switch security.check(request) {
        case .deny(let status, let code, let message):
            // A person opening the page sees the reason as text; scripts get the JSON error.
            var response = DeskResponse.error(status, code, message)
            if !request.path.hasPrefix("/api/") {
                response.headers = [("Content-Type", "text/plain; charset=utf-8")]
                response.body = Array("\(message)\n".utf8)
            }
            Self.respond(channel, head, response)
        case .exchange(let cookie):
            Self.respond(channel, head, .redirect(to: "/", headers: [("Set-Cookie", cookie)]))
        case .allow:
            if request.method == "GET" && request.path == "/api/events" {
                startEvents(channel, head)
                return
            }
            let app = self.app
            pool.runIfActive(eventLoop: channel.eventLoop) { app.handle(request) }.whenComplete { result in
                switch result {
                case .success(let response): Self.respond(channel, head, response)
                case .failure: Self.respond(channel, head, .error(503, "stopping", "The desk is stopping."), close: true)
                }
            }
        }
    }

    /// Server-sent events: the state now, then every change, until the page goes away.
    func startEvents(_ channel: Channel, _ head: HTTPRequestHead) {
        var headers = HTTPHeaders(DeskGuard.headers)
        headers.add(name: "Content-Type", value: "text/event-stream")
        channel.writeAndFlush(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers)), promise: nil)
        let allocator = channel.allocator
        // Called under DeskState's lock: the write is queued on the event loop (always a task of
        // its own, in order), never run here, so a failing write cannot re-enter DeskState.
        subscription = app.state.subscribe { json in
            let buffer = allocator.buffer(string: "event: state\ndata: \(json)\n\n")
            channel.eventLoop.execute { channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let subscription { app.state.unsubscribe(subscription) }
        subscription = nil
        context.fireChannelInactive()
    }

    static func respond(_ channel: Channel, _ head: HTTPRequestHead, _ response: DeskResponse, close: Bool = false) {
        var headers = HTTPHeaders(DeskGuard.headers + response.headers)
        headers.replaceOrAdd(name: "Content-Length", value: "\(response.body.count)")
        let keepAlive = head.isKeepAlive && !close
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status, reasonPhrase: DeskResponse.reasons[response.status] ?? "")
        channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: status, headers: headers)), promise: nil)
        if head.method != .HEAD && !response.body.isEmpty {
            channel.write(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: response.body))), promise: nil)
        }
        let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if !keepAlive { done.whenComplete { _ in channel.close(promise: nil) } }
    }
}
