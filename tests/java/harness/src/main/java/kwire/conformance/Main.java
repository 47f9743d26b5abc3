package kwire.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.types.Schema;

/**
 * A JSON-lines server over Kafka's generated message classes, for kafka-wire's differential
 * conformance harness (tests/conformance). One request per line on stdin, one response per line
 * on stdout. The same jar runs against the Kafka 4.4.0 and the 3.9.1 jars, in two JVMs.
 *
 * <p>Operations:
 * <ul>
 *   <li>{@code {"op":"index"}}: every generated message class on the classpath, with its versions.
 *   <li>{@code {"op":"gen","class":C,"version":V,"count":N,"seed":S}}: N random values built by
 *       {@link Gen}, each written by Kafka, read back by Kafka and written again; returns the bytes
 *       and Kafka's JSON of the value Kafka read.
 *   <li>{@code {"op":"read","class":C,"version":V,"hexes":[...]}}: Kafka reads each input; returns
 *       whether it accepted it, how many bytes it left unread, its re-encoding and its JSON.
 *   <li>{@code {"op":"fromJson","class":C,"version":V,"jsons":[...]}}: Kafka's JSON converter reads
 *       each value; returns Kafka's encoding of it.
 * </ul>
 */
public final class Main {
    static final ObjectMapper MAPPER = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Generated message classes by fully qualified name (after "index"). */
    static final Map<String, Class<?>> CLASSES = new TreeMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            ObjectNode resp;
            try {
                JsonNode req = MAPPER.readTree(line);
                String op = req.path("op").asText();
                switch (op) {
                    case "index": resp = index(); break;
                    case "gen": resp = gen(req); break;
                    case "read": resp = read(req); break;
                    case "fromJson": resp = fromJson(req); break;
                    case "quit": return;
                    default: resp = NODES.objectNode().put("error", "unknown op " + op);
                }
            } catch (Throwable t) {
                resp = NODES.objectNode().put("error", describe(t));
            }
            out.write(MAPPER.writeValueAsString(resp));
            out.write('\n');
            out.flush();
        }
    }

    // ---- index ------------------------------------------------------------------------------

    static ObjectNode index() throws Exception {
        ObjectNode resp = NODES.objectNode();
        resp.put("kafkaVersion", kafkaVersion());
        ArrayNode list = resp.putArray("messages");
        for (String path : System.getProperty("java.class.path").split(File.pathSeparator)) {
            File f = new File(path);
            if (!f.getName().startsWith("kafka") || !f.getName().endsWith(".jar")) continue;
            try (JarFile jar = new JarFile(f)) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    String n = e.nextElement().getName();
                    if (!n.endsWith(".class") || n.contains("$") || n.endsWith("JsonConverter.class")) continue;
                    if (!(n.contains("/generated/") || n.contains("/common/message/") || n.contains("/common/metadata/"))) continue;
                    String cn = n.substring(0, n.length() - 6).replace('/', '.');
                    Class<?> c;
                    try {
                        c = Class.forName(cn, false, Main.class.getClassLoader());
                    } catch (Throwable t) {
                        continue;
                    }
                    if (!Message.class.isAssignableFrom(c) || c.isInterface() || Modifier.isAbstract(c.getModifiers())) continue;
                    Schema[] schemas;
                    try {
                        schemas = (Schema[]) c.getField("SCHEMAS").get(null);
                    } catch (NoSuchFieldException ex) {
                        continue;
                    }
                    Message m = (Message) c.getConstructor().newInstance();
                    CLASSES.put(cn, c);
                    ObjectNode o = list.addObject();
                    o.put("class", cn);
                    o.put("simple", c.getSimpleName());
                    o.put("jar", f.getName());
                    o.put("lowest", m.lowestSupportedVersion());
                    o.put("highest", m.highestSupportedVersion());
                    o.put("schemas", schemas.length);
                    if (m instanceof ApiMessage) o.put("apiKey", ((ApiMessage) m).apiKey());
                    o.put("json", converter(c) != null);
                }
            }
        }
        return resp;
    }

    /**
     * The release of the kafka-clients jar on the classpath. {@code AppInfoParser} moved from
     * {@code common.utils} (3.9.1) to {@code common.utils.internals} (4.4.0), so it is found by name.
     */
    static String kafkaVersion() throws Exception {
        for (String n : new String[] {"org.apache.kafka.common.utils.internals.AppInfoParser", "org.apache.kafka.common.utils.AppInfoParser"}) {
            Class<?> c;
            try {
                c = Class.forName(n);
            } catch (ClassNotFoundException e) {
                continue;
            }
            return (String) c.getMethod("getVersion").invoke(null);
        }
        throw new IllegalStateException("no AppInfoParser in kafka-clients");
    }

    static Class<?> cls(JsonNode req) throws Exception {
        String name = req.path("class").asText();
        Class<?> c = CLASSES.get(name);
        if (c == null) {
            c = Class.forName(name);
            CLASSES.put(name, c);
        }
        return c;
    }

    static final Map<Class<?>, Class<?>> CONVERTERS = new HashMap<>();

    static Class<?> converter(Class<?> c) {
        return CONVERTERS.computeIfAbsent(c, k -> {
            try {
                return Class.forName(k.getName() + "JsonConverter", false, Main.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                return null;
            }
        });
    }

    // ---- reading and writing through the generated code ------------------------------------

    static final Map<Class<?>, Constructor<?>> READERS = new HashMap<>();

    /** Kafka's generated constructor {@code XxxData(Readable, short)}. */
    static Message readMessage(Class<?> c, Readable r, short v) throws Throwable {
        Constructor<?> k = READERS.get(c);
        if (k == null) {
            k = c.getConstructor(Readable.class, short.class);
            READERS.put(c, k);
        }
        try {
            return (Message) k.newInstance(r, v);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static byte[] writeMessage(Message m, short v) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = m.size(cache, v);
        ByteBuffer buf = ByteBuffer.allocate(size);
        m.write(new ByteBufferAccessor(buf), cache, v);
        if (buf.hasRemaining()) throw new IllegalStateException("size() said " + size + " but write() left " + buf.remaining() + " bytes");
        return buf.array();
    }

    static JsonNode toJson(Message m, short v) throws Throwable {
        Class<?> conv = converter(m.getClass());
        if (conv == null) return null;
        Method w = conv.getMethod("write", m.getClass(), short.class);
        try {
            return (JsonNode) w.invoke(null, m, v);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    static Message fromJson(Class<?> c, JsonNode node, short v) throws Throwable {
        Class<?> conv = converter(c);
        if (conv == null) throw new UnsupportedOperationException("no JSON converter for " + c.getName());
        Method r = conv.getMethod("read", JsonNode.class, short.class);
        try {
            return (Message) r.invoke(null, node, v);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    // ---- ops --------------------------------------------------------------------------------

    static ObjectNode gen(JsonNode req) throws Throwable {
        Class<?> c = cls(req);
        short v = (short) req.path("version").asInt();
        int count = req.path("count").asInt();
        long seed = req.path("seed").asLong();
        Schema schema = ((Schema[]) c.getField("SCHEMAS").get(null))[v];
        if (schema == null) throw new IllegalArgumentException(c.getName() + " has no schema at version " + v);
        ObjectNode resp = NODES.objectNode();
        ArrayNode values = resp.putArray("values");
        ArrayNode problems = resp.putArray("problems");
        Gen g = new Gen(seed, v);
        int attempts = 0;
        while (values.size() < count && attempts < count * 4 + 20) {
            attempts++;
            g.nullsUsed.clear();
            Message m;
            byte[] first;
            try {
                m = (Message) g.struct(c, schema, 0);
                first = writeMessage(m, v);
            } catch (Throwable t) {
                // A null Kafka cannot write tells us the field is not nullable here: learn it.
                if (!g.nullsUsed.isEmpty()) {
                    Gen.NOT_NULLABLE.addAll(g.nullsUsed);
                    continue;
                }
                problems.add("generate/write: " + describe(t));
                continue;
            }
            ObjectNode val = values.addObject();
            try {
                ByteBuffer buf = ByteBuffer.wrap(first);
                Message back = readMessage(c, new ByteBufferAccessor(buf), v);
                byte[] second = writeMessage(back, v);
                val.put("hex", hex(second));
                if (buf.hasRemaining()) val.put("javaProblem", "Kafka left " + buf.remaining() + " byte(s) of its own encoding unread");
                else if (!java.util.Arrays.equals(first, second)) {
                    val.put("javaProblem", "Kafka's re-encoding of its own value differs");
                    val.put("firstHex", hex(first));
                }
                try {
                    JsonNode j = toJson(back, v);
                    if (j != null) val.set("json", j);
                } catch (Throwable t) {
                    val.put("jsonErr", describe(t));
                }
            } catch (Throwable t) {
                val.put("hex", hex(first));
                val.put("javaProblem", "Kafka cannot read its own encoding: " + describe(t));
            }
        }
        return resp;
    }

    static ObjectNode read(JsonNode req) throws Throwable {
        Class<?> c = cls(req);
        short v = (short) req.path("version").asInt();
        boolean json = req.path("json").asBoolean(true);
        ObjectNode resp = NODES.objectNode();
        ArrayNode results = resp.putArray("results");
        for (JsonNode h : req.path("hexes")) {
            ObjectNode res = results.addObject();
            byte[] in = unhex(h.asText());
            ByteBuffer buf = ByteBuffer.wrap(in);
            Message m;
            try {
                m = readMessage(c, new ByteBufferAccessor(buf), v);
            } catch (Throwable t) {
                res.put("ok", false);
                res.put("err", describe(t));
                continue;
            }
            res.put("ok", true);
            res.put("remaining", buf.remaining());
            try {
                res.put("hex", hex(writeMessage(m, v)));
            } catch (Throwable t) {
                res.put("writeErr", describe(t));
            }
            if (json) {
                try {
                    JsonNode j = toJson(m, v);
                    if (j != null) res.set("json", j);
                } catch (Throwable t) {
                    res.put("jsonErr", describe(t));
                }
            }
        }
        return resp;
    }

    static ObjectNode fromJson(JsonNode req) throws Throwable {
        Class<?> c = cls(req);
        short v = (short) req.path("version").asInt();
        ObjectNode resp = NODES.objectNode();
        ArrayNode results = resp.putArray("results");
        for (JsonNode j : req.path("jsons")) {
            ObjectNode res = results.addObject();
            try {
                Message m = fromJson(c, j, v);
                res.put("ok", true);
                res.put("hex", hex(writeMessage(m, v)));
            } catch (Throwable t) {
                res.put("ok", false);
                res.put("err", describe(t));
            }
        }
        return resp;
    }

    // ---- helpers ----------------------------------------------------------------------------

    static String describe(Throwable t) {
        String m = t.getMessage();
        String s = t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    static final char[] HEX = "0123456789abcdef".toCharArray();

    static String hex(byte[] b) {
        char[] c = new char[b.length * 2];
        for (int i = 0; i < b.length; i++) {
            c[2 * i] = HEX[(b[i] >> 4) & 15];
            c[2 * i + 1] = HEX[b[i] & 15];
        }
        return new String(c);
    }

    static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }
}
