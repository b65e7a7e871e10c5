// swift-format-ignore-file
// (The blocks are kept exactly as the documentation shows them.)
// The Swift blocks of ChatStreamClient.docc/Delivery.md's server side, compiled (see README.md here).

import ChatStreamServer

// MARK: ChatStreamClient.docc/Delivery.md

func deliveryServerRetention() throws {
    var configuration = ChatAPIServer.Configuration()
    configuration.replies.retention = .seconds(30 * 60)  // hold ended replies for 30 minutes
    configuration.replies.retainedBytes = 64 << 20       // and up to 64 MiB of them
    let server = ChatAPIServer(configuration: configuration)
    try server.start()
}
