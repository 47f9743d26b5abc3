// kafkajs against the stub: create a topic and describe its configs (admin), produce three
// records (producer), consume them back in a group and commit (consumer). Exits non-zero when
// the records read back differ from those produced.
const { Kafka, logLevel, ConfigResourceTypes } = require('kafkajs')

const BOOTSTRAP = process.argv[2]
const TOPIC = 'kwire-kafkajs'
const SENT = [0, 1, 2].map(i => [`key-${i}`, `value-${i} from kafkajs`])
const kafka = id => new Kafka({ clientId: id, brokers: [BOOTSTRAP], logLevel: logLevel.WARN, retry: { retries: 3 } })

async function main () {
  const admin = kafka('kwire-admin').admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 1 }] })
  const configs = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC }], includeSynonyms: false })
  console.log('configs:', configs.resources[0].configEntries.map(c => c.configName))
  await admin.disconnect()

  const producer = kafka('kwire-producer').producer()
  await producer.connect()
  await producer.send({ topic: TOPIC, messages: SENT.map(([key, value]) => ({ key, value, headers: { h: '1' } })) })
  await producer.disconnect()

  const consumer = kafka('kwire-consumer').consumer({ groupId: 'kwire-group' })
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
  await consumer.disconnect()
  console.log('received:', JSON.stringify(got))
  if (JSON.stringify(got) !== JSON.stringify(SENT)) throw new Error('consumer: records differ from those produced')
}

main().then(() => process.exit(0), e => { console.error(e); process.exit(1) })
