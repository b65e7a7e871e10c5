// AddressCaps: how many of something (open streams, connections) each client address and each
// client network holds, against three caps: global, per address, and per network (an IPv4 /24 or
// an IPv6 /64), so one attacker needs many networks, not many addresses, to fill the global cap.
// IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) count as their IPv4 address.

import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Counts holdings per client address and network against caps; thread-safe.
final class AddressCaps: Sendable {
    /// A holding: release it once with ``release(_:)``.
    struct Reservation: Sendable, Hashable {
        let address: String
        let network: String
    }

    private struct State {
        var total = 0
        var perAddress: [String: Int] = [:]
        var perNetwork: [String: Int] = [:]
    }

    /// The most held at once in all.
    let global: Int
    /// The most one address holds.
    let perAddress: Int
    /// The most one /24 (IPv4) or /64 (IPv6) network holds.
    let perNetwork: Int
    private let state = Mutex(State())

    init(global: Int, perAddress: Int, perNetwork: Int) {
        self.global = max(0, global)
        self.perAddress = max(0, perAddress)
        self.perNetwork = max(0, perNetwork)
    }

    /// Takes one for `address` (a numeric IP), or nil when a cap is reached.
    func reserve(_ address: String) -> Reservation? {
        let reservation = Reservation(address: address, network: Self.network(of: address))
        return state.withLock { state in
            guard state.total < global, state.perAddress[reservation.address, default: 0] < perAddress,
                state.perNetwork[reservation.network, default: 0] < perNetwork
            else { return nil }
            state.total += 1
            state.perAddress[reservation.address, default: 0] += 1
            state.perNetwork[reservation.network, default: 0] += 1
            return reservation
        }
    }

    /// Gives back what ``reserve(_:)`` took.
    func release(_ reservation: Reservation) {
        state.withLock { state in
            state.total -= 1
            state.perAddress[reservation.address, default: 1] -= 1
            if state.perAddress[reservation.address] == 0 { state.perAddress[reservation.address] = nil }
            state.perNetwork[reservation.network, default: 1] -= 1
            if state.perNetwork[reservation.network] == 0 { state.perNetwork[reservation.network] = nil }
        }
    }

    /// The number held now.
    var held: Int { state.withLock { $0.total } }

    /// The network an address counts in: `a.b.c.0/24` for IPv4, the first four groups and `::/64`
    /// for IPv6; the address itself when it is not numeric.
    static func network(of address: String) -> String {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return ipv4Network(v4) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return "\(bytes[12]).\(bytes[13]).\(bytes[14]).0/24"
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }

    private static func ipv4Network(_ address: in_addr) -> String {
        var address = address
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        return "\(bytes[0]).\(bytes[1]).\(bytes[2]).0/24"
    }
}
