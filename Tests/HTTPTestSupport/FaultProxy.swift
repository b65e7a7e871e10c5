// FaultProxy: a loopback TCP proxy that sits between a client and a server and does to their
// connections what a mobile network does: cuts them at random byte offsets of the server's
// answer (a clean close, a reset, or a stall that then closes), or all at once on demand. With
// RestartableServer (the server side of a restart) it is the fault rig of the delivery tests.
//
// One accept thread, one thread per proxied connection (blocking sockets, poll with a short
// timeout so stops and on-demand cuts are noticed within 50 ms). Bytes from the client go to the
// server unchanged; bytes from the server are counted, and a connection planned to be cut gets
// exactly the bytes before its offset. Which connections are cut and where is drawn from a seeded
// generator, so a failing run can be repeated.

import Dispatch
import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback TCP proxy that injects connection faults.
///
/// ```swift
/// let proxy = try FaultProxy(upstreamPort: server.port, plan: .init(cutProbability: 0.3, seed: 7))
/// // point the client at http://127.0.0.1:\(proxy.port)
/// proxy.cutAll(.reset)   // every open connection is reset now
/// proxy.stop()
/// ```
package final class FaultProxy: Sendable {
    /// What a cut does to a connection.
    package enum Cut: Sendable, Hashable, CaseIterable {
        /// Both sides get a clean end (FIN) after the bytes before the offset.
        case close
        /// The client gets a reset (RST); the server side is closed.
        case reset
        /// Nothing more flows for ``Plan/stallDuration``, then both sides are closed.
        case stall
    }

    /// Which connections are cut, where and how.
    package struct Plan: Sendable {
        /// The chance that a new connection is cut somewhere in the server's bytes. Default 0.
        package var cutProbability: Double
        /// The server-to-client byte offsets a cut falls in (drawn uniformly). Default 1...2048.
        package var cutOffsets: ClosedRange<Int>
        /// The kinds of cut drawn from (uniformly). Default all three.
        package var cuts: [Cut]
        /// How long a stall holds a connection before closing it. Default 2 s.
        package var stallDuration: Duration
        /// The seed of the draws.
        package var seed: UInt64

        package init(
            cutProbability: Double = 0, cutOffsets: ClosedRange<Int> = 1...2048, cuts: [Cut] = Cut.allCases,
            stallDuration: Duration = .seconds(2), seed: UInt64 = 28
        ) {
            self.cutProbability = cutProbability
            self.cutOffsets = cutOffsets
            self.cuts = cuts
            self.stallDuration = stallDuration
            self.seed = seed
        }
    }

    /// What the proxy has done so far.
    package struct Counters: Sendable, Equatable {
        package var connections = 0
        /// Connections whose server could not be reached (closed at once).
        package var refused = 0
        package var cuts: [Cut: Int] = [:]
        package var bytesToServer = 0
        package var bytesToClient = 0
    }

    private struct State {
        var plan: Plan
        var random: SplitMix64
        var counters = Counters()
        /// The connections open now.
        var open: Set<Int> = []
        /// Cuts asked for by ``cutAll(_:)``, per open connection, not yet done.
        var requested: [Int: Cut] = [:]
        var nextId = 0
        var stopped = false
        /// Whether the servers' bytes wait (``holdReplies()``).
        var holding = false
        /// Bytes after which the servers' bytes wait (``holdReplies(after:)``), once forwarded.
        var holdMarker: [UInt8]?
    }

    /// The port the proxy listens on (127.0.0.1).
    package let port: UInt16
    /// The server's port on 127.0.0.1.
    package let upstreamPort: UInt16
    private let listener: Int32
    private let state: Mutex<State>
    private let threads = DispatchGroup()

    /// Listens on 127.0.0.1 (`port` 0: any free one) and forwards to 127.0.0.1:`upstreamPort`.
    package convenience init(upstreamPort: UInt16, port: UInt16 = 0, plan: Plan = Plan()) throws {
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw FaultProxyError("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(fd)
            throw FaultProxyError("bind on port \(port): errno \(errno)")
        }
        try self.init(upstreamPort: upstreamPort, boundSocket: fd, plan: plan)
    }

    /// Listens on `boundSocket`, a TCP socket already bound to a loopback port (the proxy owns it
    /// from now on, and closes it when it fails), and forwards to 127.0.0.1:`upstreamPort`. A test
    /// that held the port closed (bound, not listening: connections are refused) opens it this
    /// way without ever releasing it, so no other socket can take it in between.
    package init(upstreamPort: UInt16, boundSocket fd: Int32, plan: Plan = Plan()) throws {
        self.upstreamPort = upstreamPort
        state = Mutex(State(plan: plan, random: SplitMix64(seed: plan.seed)))
        guard listen(fd, 128) == 0 else {
            let error = errno
            close(fd)
            throw FaultProxyError("listen on socket \(fd): errno \(error)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        listener = fd
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            threads.leave()
        }
        thread.name = "FaultProxy accept :\(self.port)"
        thread.start()
    }

    deinit { stop() }

    /// Replaces the plan for connections accepted from now on (the generator is seeded again).
    package func setPlan(_ plan: Plan) {
        state.withLock { state in
            state.plan = plan
            state.random = SplitMix64(seed: plan.seed)
        }
    }

    /// Cuts every open connection now, the way `cut` says.
    package func cutAll(_ cut: Cut) {
        state.withLock { state in
            for id in state.open { state.requested[id] = cut }
        }
    }

    /// Stops forwarding the servers' bytes on every connection, from now until ``releaseReplies()``:
    /// what a server sends waits in the kernel's buffers, so a client reads nothing more (a reply
    /// cannot end while a test acts mid-reply). The clients' bytes still go through, and a client
    /// that closes its connection is still noticed.
    package func holdReplies() { state.withLock { $0.holding = true } }

    /// Holds the servers' bytes as ``holdReplies()`` does, from the moment a chunk holding
    /// `marker` has been forwarded: the proxy itself stops the reply there, however slowly the
    /// client reads (a test acting when its client sees the marker may act too late under load).
    /// `marker` must lie within one event's bytes as the server sends them (a text split over two
    /// deltas never matches).
    package func holdReplies(after marker: String) { state.withLock { $0.holdMarker = Array(marker.utf8) } }

    /// Forwards the servers' bytes again (after ``holdReplies()`` or ``holdReplies(after:)``).
    package func releaseReplies() {
        state.withLock {
            $0.holding = false
            $0.holdMarker = nil
        }
    }

    /// What the proxy did so far.
    package var counters: Counters { state.withLock { $0.counters } }

    /// Stops accepting, closes every connection and waits for its threads (at most 5 s). Idempotent.
    package func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        _ = threads.wait(timeout: .now() + 5)
        close(listener)
    }

    // MARK: - Threads

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while !isStopped {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let (id, cutAt, cut, stall) = state.withLock { state -> (Int, Int?, Cut, Duration) in
                let id = state.nextId
                state.nextId += 1
                state.counters.connections += 1
                let plan = state.plan
                var cutAt: Int?
                let draw = Double(state.random.next() % 1_000_000) / 1_000_000
                if draw < plan.cutProbability {
                    cutAt = Int.random(in: plan.cutOffsets, using: &state.random)
                }
                let cut = plan.cuts.isEmpty ? Cut.close : plan.cuts[Int(state.random.next() % UInt64(plan.cuts.count))]
                return (id, cutAt, cut, plan.stallDuration)
            }
            threads.enter()
            let thread = Thread { [self] in
                relay(id: id, client: client, cutAt: cutAt, cut: cut, stall: stall)
                threads.leave()
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
    }

    /// Forwards between `client` and a new connection to the server until either side ends, a
    /// planned or asked-for cut happens, or the proxy stops.
    private func relay(id: Int, client: Int32, cutAt: Int?, cut plannedCut: Cut, stall: Duration) {
        let server = Self.connect(port: upstreamPort)
        guard server >= 0 else {
            state.withLock { $0.counters.refused += 1 }
            Self.finish(client, server: nil, as: .close)
            return
        }
        state.withLock { _ = $0.open.insert(id) }
        defer {
            state.withLock { state in
                state.open.remove(id)
                state.requested[id] = nil
            }
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var toClient = 0
        /// Server bytes read after a held marker's event, forwarded once the hold ends.
        var heldBack: [UInt8] = []
        while true {
            if let asked = askedCut(id) {
                record(asked)
                if asked == .stall { Self.sleep(stall) }
                Self.finish(client, server: server, as: asked)
                return
            }
            if isStopped {
                Self.finish(client, server: server, as: .close)
                return
            }
            let holding = state.withLock { $0.holding }
            if !holding, !heldBack.isEmpty {
                guard Self.sendAll(client, heldBack[...]) else {
                    Self.finish(client, server: server, as: .close)
                    return
                }
                heldBack.removeAll()
            }
            var descriptors = [
                pollfd(fd: client, events: Int16(POLLIN), revents: 0),
                pollfd(fd: server, events: holding ? 0 : Int16(POLLIN), revents: 0),
            ]
            guard poll(&descriptors, 2, 50) > 0 else { continue }
            // A held server's hang-up wakes poll at once: wait instead of spinning.
            if holding, descriptors[0].revents == 0 { usleep(10_000) }
            if descriptors[0].revents != 0 {
                let count = recv(client, &buffer, buffer.count, 0)
                guard count > 0, Self.sendAll(server, buffer[0..<count]) else {
                    Self.finish(client, server: server, as: .close)
                    return
                }
                state.withLock { $0.counters.bytesToServer += count }
            }
            if !holding, descriptors[1].revents != 0 {
                let count = recv(server, &buffer, buffer.count, 0)
                guard count > 0 else {
                    Self.finish(client, server: server, as: .close)
                    return
                }
                var allowed = count
                if let cutAt { allowed = min(count, max(0, cutAt - toClient)) }
                // A held marker: forward through the end of the event that holds it, keep the rest.
                let marker = state.withLock { $0.holdMarker }
                if let marker, let end = Self.eventEnd(after: marker, in: buffer[0..<allowed]) {
                    heldBack.append(contentsOf: buffer[end..<allowed])
                    allowed = end
                    state.withLock { state in
                        state.holding = true
                        state.holdMarker = nil
                    }
                }
                let delivered = allowed == 0 || Self.sendAll(client, buffer[0..<allowed])
                toClient += allowed
                state.withLock { $0.counters.bytesToClient += allowed }
                if let cutAt, toClient >= cutAt {
                    record(plannedCut)
                    if plannedCut == .stall { Self.sleep(stall) }
                    Self.finish(client, server: server, as: plannedCut)
                    return
                }
                guard delivered else {
                    Self.finish(client, server: server, as: .close)
                    return
                }
            }
        }
    }

    /// The index just past the blank line that ends the event holding `marker` in `bytes` (the
    /// end of `bytes` when that event's end is not in them), or nil when `marker` is not there (a
    /// marker split across two reads is not seen).
    private static func eventEnd(after marker: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard !marker.isEmpty, bytes.count >= marker.count else { return nil }
        var start = bytes.startIndex
        while start <= bytes.endIndex - marker.count {
            if bytes[start..<start + marker.count].elementsEqual(marker) {
                var index = start + marker.count
                while index + 1 < bytes.endIndex {
                    if bytes[index] == 10, bytes[index + 1] == 10 { return index + 2 }
                    index += 1
                }
                return bytes.endIndex
            }
            start += 1
        }
        return nil
    }

    /// The cut ``cutAll(_:)`` asked of connection `id`, taken.
    private func askedCut(_ id: Int) -> Cut? {
        state.withLock { $0.requested.removeValue(forKey: id) }
    }

    private func record(_ cut: Cut) {
        state.withLock { $0.counters.cuts[cut, default: 0] += 1 }
    }

    // MARK: - Sockets

    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        private static let streamType = SOCK_STREAM
    #endif

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A connected socket to 127.0.0.1:`port`, or -1.
    private static func connect(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { return -1 }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    private static func sendAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, sendFlags) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    #if canImport(Glibc)
        private static let systemConnect = Glibc.connect
    #else
        private static let systemConnect = Darwin.connect
    #endif

    #if canImport(Glibc)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        private static let sendFlags: Int32 = 0
    #endif

    /// Ends both sides: a clean close (FIN), or for `.reset` an RST to the client.
    private static func finish(_ client: Int32, server: Int32?, as cut: Cut) {
        if cut == .reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        } else {
            shutdown(client, Int32(SHUT_RDWR))
        }
        close(client)
        if let server {
            shutdown(server, Int32(SHUT_RDWR))
            close(server)
        }
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
    }
}

/// A FaultProxy failure (it could not listen).
package struct FaultProxyError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
