// boardgame.io 0.50 server for bench/peer.py: the game of game.js, the in-memory store, the
// Lobby API and socket.io on one loopback port, compression off.
//   node bench/peer/server.js PORT
const { Server } = require('boardgame.io/server');
const { DotsAndBoxes } = require('./game');

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node server.js PORT');
  process.exit(2);
}
const server = Server({
  games: [DotsAndBoxes],
  socketOpts: { perMessageDeflate: false, httpCompression: false },
});
server.run({ port, callback: () => console.log(`listening on ${port}`) });
process.on('SIGTERM', () => process.exit(0));
