// ReplyRegistry's bookkeeping (issue 32): the generating replies' count and reserved bytes, and the
// ended replies' queue (retention, byte budget, oldest end dropped first), kept without walking
// every held reply on each registration.

import Testing

@testable import ChatStreamServer

@Suite("Reply registry", .blockingAllowed)
struct ReplyRegistryTests {
    static func limits(
        maxGenerating: Int = 256, generatingBytes: Int = 64 << 20, retainedBytes: Int = 32 << 20,
        retention: Duration = .seconds(600)
    ) -> ChatAPIServer.Replies {
        var limits = ChatAPIServer.Replies()
        limits.maxGenerating = maxGenerating
        limits.generatingBytes = generatingBytes
        limits.retainedBytes = retainedBytes
        limits.retention = retention
        return limits
    }

    static func run(_ id: String, planned: Int = 0) -> ReplyRun {
        ReplyRun(
            metadata: ReplyMetadata(conversationId: "c", messageId: id, userMessageId: nil, userId: nil),
            sequence: 1, ownerKey: "k", numbered: true, plannedBytes: planned)
    }

    /// Ends `run` as its generator does; its events then hold `id: 1\ndata: [DONE]\n\n` (20 bytes).
    static func end(_ run: ReplyRun) {
        #expect(run.claimEnd(as: nil) != nil)
        run.end(appending: ["[DONE]"])
    }

    /// Whether `body` throws 503 `SERVER_BUSY` (false when it returns; any other error fails the test).
    static func isBusy(_ body: () throws -> Void) -> Bool {
        do {
            try body()
            return false
        } catch let error as APIError {
            return error.status == 503 && error.code == "SERVER_BUSY"
        } catch {
            Issue.record("unexpected \(error)")
            return false
        }
    }

    @Test func aDroppedReplyIsLetGoWhenDroppedNotWithTheQueueLater() {
        // 20 bytes a reply, 60 retained: three held, the fourth's end drops the first. The queue
        // used to keep dropped replies until its dropped front passed 64 and half the queue, then
        // free them all at once (about 14,000 at the default budget, over 100 ms under the lock a
        // chat's store write takes it in).
        let registry = ReplyRegistry(limits: Self.limits(retainedBytes: 60))
        weak var first: ReplyRun?
        var later: [ReplyRun] = []
        do {
            let run = Self.run("r0")
            first = run
            try? registry.register(run)
            Self.end(run)
        }
        for index in 1...3 {
            let run = Self.run("r\(index)")
            later.append(run)
            try? registry.register(run)
            Self.end(run)
        }
        #expect(registry.run("r1") != nil)  // a lookup sweeps: r0 is over the budget
        #expect(registry.run("r0") == nil)
        #expect(first == nil, "the dropped reply is still held")
        withExtendedLifetime(later) {}
    }

    @Test func generatingRepliesAreCountedUntilTheyEnd() {
        let registry = ReplyRegistry(limits: Self.limits(maxGenerating: 3))
        let runs = (0..<3).map { Self.run("r\($0)") }
        for run in runs { #expect(!Self.isBusy { try registry.register(run) }) }
        #expect(Self.isBusy { try registry.register(Self.run("r3")) })
        // Ending is not enough while the end is being stored; ended, its place is free.
        #expect(runs[0].claimEnd(as: nil) != nil)
        #expect(Self.isBusy { try registry.register(Self.run("r3")) })
        runs[0].end(appending: ["[DONE]"])
        #expect(!Self.isBusy { try registry.register(Self.run("r3")) })
        #expect(Set(registry.generating.map(\.messageId)) == ["r1", "r2", "r3"])
        // A forgotten registration frees its place too.
        registry.forget(runs[1])
        #expect(!Self.isBusy { try registry.register(Self.run("r4")) })
        #expect(registry.run("r1") == nil)
        #expect(registry.run("r0") === runs[0])
    }

    @Test func plannedBytesAreReservedUntilTheReplyEnds() {
        let registry = ReplyRegistry(limits: Self.limits(generatingBytes: 1_000))
        let first = Self.run("a", planned: 600)
        #expect(!Self.isBusy { try registry.register(first) })
        #expect(Self.isBusy { try registry.checkRoom(for: 401) })
        #expect(!Self.isBusy { try registry.checkRoom(for: 400) })
        let second = Self.run("b", planned: 400)
        #expect(!Self.isBusy { try registry.register(second) })
        #expect(Self.isBusy { try registry.checkRoom(for: 1) })
        Self.end(first)
        #expect(!Self.isBusy { try registry.checkRoom(for: 600) })
        #expect(Self.isBusy { try registry.checkRoom(for: 601) })
        registry.forget(second)
        #expect(!Self.isBusy { try registry.checkRoom(for: 1_000) })
    }

    @Test func theByteBudgetDropsTheReplyThatEndedFirst() {
        // Room for two ended replies of 20 bytes each.
        let registry = ReplyRegistry(limits: Self.limits(retainedBytes: 45))
        let runs = (0..<3).map { Self.run("r\($0)") }
        for run in runs { #expect(!Self.isBusy { try registry.register(run) }) }
        // They end in the reverse of their registration order.
        Self.end(runs[2])
        Self.end(runs[1])
        #expect(registry.run("r2") === runs[2])
        Self.end(runs[0])
        #expect(registry.run("r2") == nil)
        #expect(registry.run("r1") === runs[1])
        #expect(registry.run("r0") === runs[0])
        #expect(registry.heldBytes == 40)
    }

    @Test func endedRepliesPastTheirRetentionAreDropped() {
        let registry = ReplyRegistry(limits: Self.limits(retention: .milliseconds(20)))
        let old = Self.run("old")
        #expect(!Self.isBusy { try registry.register(old) })
        Self.end(old)
        #expect(registry.run("old") === old)
        let kept = Self.run("kept")
        #expect(!Self.isBusy { try registry.register(kept) })
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .milliseconds(50) {}
        // Past the retention, the ended reply goes; the generating one stays however long it runs.
        #expect(registry.run("old") == nil)
        #expect(registry.run("kept") === kept)
        #expect(registry.heldBytes == 0)
    }

    @Test func manyEndedRepliesStayHeldAndCountNothing() {
        let registry = ReplyRegistry(limits: Self.limits(maxGenerating: 2, generatingBytes: 100))
        var runs: [ReplyRun] = []
        for index in 0..<5_000 {
            let run = Self.run("r\(index)", planned: 100)
            #expect(!Self.isBusy { try registry.register(run) })
            Self.end(run)
            runs.append(run)
        }
        #expect(registry.generating.isEmpty)
        #expect(registry.heldBytes == 5_000 * 20)
        #expect(runs.indices.allSatisfy { registry.run("r\($0)") === runs[$0] })
        #expect(!Self.isBusy { try registry.register(Self.run("new", planned: 100)) })
        #expect(Self.isBusy { try registry.checkRoom(for: 1) })
    }
}
