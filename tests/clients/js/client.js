// kafkajs against the stub: create two topics and describe one's configs (admin), produce
// records uncompressed and gzipped (producer), consume them back in a group and commit
// (consumer), list the groups and delete the second topic (admin). Exits non-zero when the
// records read back differ from those produced.
const { Kafka, logLevel, ConfigResourceTypes, CompressionTypes } = require('kafkajs')

const BOOTSTRAP = process.argv[2]
const TOPIC = 'kwire-kafkajs'
const SCRATCH = 'kwire-kafkajs-scratch'
// Three records per compression codec (kafkajs has only gzip built in).
const CODECS = [['none', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]]
const SENT = CODECS.flatMap(([name]) => [0, 1, 2].map(i => [`key-${i}`, `value-${i} from kafkajs (${name})`]))
const kafka = id => new Kafka({ clientId: id, brokers: [BOOTSTRAP], logLevel: logLevel.WARN, retry: { retries: 3 } })

async function main () {
  const admin = kafka('kwire-admin').admin()
  await admin.connect()
  await admin.createTopics({ topics: [TOPIC, SCRATCH].map(topic => ({ topic, numPartitions: 1, replicationFactor: 1 })) })
  const configs = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC }], includeSynonyms: false })
  console.log('configs:', configs.resources[0].configEntries.map(c => c.configName))
  await admin.disconnect()

  const producer = kafka('kwire-producer').producer()
  await producer.connect()
  for (const [n, [, compression]] of CODECS.entries()) {
    const messages = SENT.slice(3 * n, 3 * n + 3).map(([key, value]) => ({ key, value, headers: { h: '1' } }))
    await producer.send({ topic: TOPIC, compression, messages })
  }
  await producer.disconnect()

  const consumer = kafka('kwire-consumer').consumer({ groupId: 'kwire-group', heartbeatInterval: 300 })
  await consumer.connect()
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true })
  const got = []
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('consumer: timed out')), 60000)
    consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        got.push([message.key.toString(), message.value.toString()])
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }])
        if (got.length >= SENT.length) { clearTimeout(timer); resolve() }
      }
    }).catch(reject)
  })
  // Stay a little longer so that the group heartbeat is sent (and captured) too.
  await new Promise(resolve => setTimeout(resolve, 1500))
  await consumer.disconnect()
  console.log('received:', JSON.stringify(got))
  if (JSON.stringify(got) !== JSON.stringify(SENT)) throw new Error('consumer: records differ from those produced')

  const admin2 = kafka('kwire-admin').admin()
  await admin2.connect()
  console.log('groups:', JSON.stringify(await admin2.listGroups()))
  await admin2.deleteTopics({ topics: [SCRATCH] })
  await admin2.disconnect()
}

main().then(() => process.exit(0), e => { console.error(e); process.exit(1) })
