// CurlDriver: the one thread that drives every CurlTransport transfer with libcurl's multi interface.
//
// Other threads never touch a libcurl handle: they post a command (add a transfer, remove one,
// resume a paused one) and wake the thread with `curl_multi_wakeup`. The thread loops: apply the
// commands, `curl_multi_perform` (which runs the write and header callbacks here), collect the
// finished transfers, check each exchange's idle timeout, then `curl_multi_poll` until a socket is
// ready, a command arrives, libcurl's own timer or the nearest idle deadline is due. The thread
// starts with the first request and lives as long as the process; idle, it sleeps in the poll.

#if canImport(CCurl)
    import CCurl
    import Foundation
    import Synchronization

    /// Runs all libcurl transfers of the process on one thread.
    final class CurlDriver: @unchecked Sendable {
        /// The process's driver (its thread starts on first use).
        static let shared = CurlDriver()

        /// What other threads ask of the driver thread.
        enum Command {
            /// Start the exchange's transfer.
            case add(CurlExchange)
            /// End the exchange's transfer (it failed or was cancelled).
            case remove(CurlExchange)
            /// Resume the exchange's paused receiving.
            case resume(CurlExchange)
        }

        /// The multi handle: used on the driver thread only (`curl_multi_wakeup` excepted).
        private let multi: UnsafeMutableRawPointer
        private let inbox = Mutex<[Command]>([])
        /// The exchanges whose easy handles are in the multi handle. Driver thread only.
        private var running: [UnsafeMutableRawPointer: CurlExchange] = [:]
        /// The longest poll when no deadline is nearer.
        private static let longestWait: Int32 = 10_000

        private init() {
            _ = chatstream_curl_global_init()
            guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed") }
            self.multi = multi
            let thread = Thread { [self] in run() }
            thread.name = "ChatStream.CurlDriver"
            thread.start()
        }

        /// Queues `command` for the driver thread and wakes it.
        func post(_ command: Command) {
            inbox.withLock { $0.append(command) }
            curl_multi_wakeup(multi)
        }

        private func run() {
            var commands: [Command] = []
            var active: Int32 = 0
            while true {
                inbox.withLock { swap(&commands, &$0) }
                for command in commands { apply(command) }
                commands.removeAll(keepingCapacity: true)
                curl_multi_perform(multi, &active)
                collectFinished()
                endRound()
                var wait = checkIdle()
                var curlWait = -1
                curl_multi_timeout(multi, &curlWait)
                if curlWait >= 0 { wait = min(wait, Int32(clamping: curlWait)) }
                curl_multi_poll(multi, nil, 0, wait, nil)
            }
        }

        private func apply(_ command: Command) {
            switch command {
            case .add(let exchange):
                attach(exchange)
            case .remove(let exchange):
                guard let easy = exchange.transfer.easy else { return }
                curl_multi_remove_handle(multi, easy)
                running[easy] = nil
                exchange.releaseEasy()
            case .resume(let exchange):
                guard let easy = exchange.transfer.easy, exchange.isRunning else { return }
                curl_easy_pause(easy, chatstream_curl_pause_continue())
            }
        }

        /// Makes the exchange's easy handle for its current URL and adds it to the multi handle.
        private func attach(_ exchange: CurlExchange) {
            guard exchange.isRunning else { return }
            guard let easy = exchange.makeEasy() else {
                exchange.fail(TransportError(.connectionFailed, "libcurl could not set up the request"))
                return
            }
            running[easy] = exchange
            curl_multi_add_handle(multi, easy)
        }

        /// Ends the transfers libcurl finished (and starts the next hop of a followed redirect).
        private func collectFinished() {
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let result = chatstream_curl_message_result(message)
                curl_multi_remove_handle(multi, easy)
                guard let exchange = running.removeValue(forKey: easy) else { continue }
                if exchange.transferDone(result) { attach(exchange) }
            }
        }

        /// Resumes the transfers that yielded the rest of a round (driver thread).
        ///
        /// libcurl reads a transfer as long as its socket has data, within one `curl_multi_perform`;
        /// so that a fast stream cannot hold up the others, the commands and the idle checks, a
        /// transfer takes at most `roundShare` body bytes per round of the loop, then pauses until
        /// the round ends.
        private func endRound() {
            for exchange in running.values {
                exchange.transfer.roundBytes = 0
                guard exchange.transfer.yieldedRound, let easy = exchange.transfer.easy else { continue }
                exchange.transfer.yieldedRound = false
                curl_easy_pause(easy, chatstream_curl_pause_continue())
            }
        }

        /// The most body bytes one transfer takes per round of the loop.
        static let roundShare = 64 << 10

        /// Fails the exchanges idle past their timeout; the milliseconds until the nearest deadline.
        private func checkIdle() -> Int32 {
            guard !running.isEmpty else { return Self.longestWait }
            let now = ContinuousClock.now
            var nearest = Duration.milliseconds(Int(Self.longestWait))
            for exchange in running.values {
                guard let remaining = exchange.idleRemaining(at: now) else { continue }
                if remaining > .zero {
                    exchange.transfer.idleDeadlinePassed = false
                    nearest = min(nearest, remaining)
                } else if exchange.transfer.idleDeadlinePassed {
                    exchange.timedOut()
                } else {
                    // The deadline may have passed while this thread was busy with other transfers:
                    // one more `curl_multi_perform` reads what the server sent meanwhile, then it counts.
                    exchange.transfer.idleDeadlinePassed = true
                    nearest = .zero
                }
            }
            let (seconds, attoseconds) = nearest.components
            return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        }
    }
#endif
