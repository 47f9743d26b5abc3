// Prints, for each Apache Kafka release given, the API version ranges that release's nodes put
// in their ApiVersions answers, computed by that release's own code: the static methods of
// org.apache.kafka.common.requests.ApiVersionsResponse and org.apache.kafka.common.protocol.ApiKeys
// in its kafka-clients jar, loaded in a class loader of its own and called by reflection (their
// signatures differ across releases). See releases.sh.
//
//   java AdvertisedApis.java DIR RECORDED RELEASE...
//
// DIR/RELEASE/ holds that release's kafka-clients jar and slf4j-api; RECORDED holds real
// brokers' answers (core/tests/data/api-versions/). For each release and each kind of node:
// - controller: a KRaft controller's CONTROLLER listener. What SimpleApiVersionManager
//   advertises: collectApis over ApiKeys.apisForListener(CONTROLLER).
// - broker: a KRaft broker's client listener. What DefaultApiVersionManager advertises once it
//   knows the active controller's ApiVersions (the controller's answer above): the broker's APIs,
//   forwardable ones intersected with the controller's (controllerApiVersions, or before it
//   existed createApiVersionsResponse with the controller's NodeApiVersions). Releases before
//   3.3 compose the broker's answer in their Scala core instead, differently (they add Envelope
//   in 3.0 and 3.1, and leave DescribeQuorum out): for them the answer of the release's real
//   broker, recorded by tests/broker/capture-api-versions.sh, is read from
//   RECORDED/RELEASE-broker-v3.bin with the release's own ApiVersionsResponse.parse.
// - zk-broker (releases with ZooKeeper mode): a ZooKeeper-mode broker's listener, whose controller
//   is a ZooKeeper-mode broker too: filterApis(current record version, ZK_BROKER).
// Each is computed with unstable.api.versions.enable off and on, and (where the release has the
// parameter) with and without a client telemetry reporter. Output rows (tab-separated):
//
//   release  node  api_key  name  min  max  unstable_max  when
//
// min/max: the range advertised by default; unstable_max: the highest version advertised with
// unstable.api.versions.enable=true; when: "always", "telemetry" (advertised only when a client
// telemetry reporter is configured) or "unstable" (advertised only with unstable versions
// enabled; then min and max are the range it is advertised with).
import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

public class AdvertisedApis {
    static final String AVR = "org.apache.kafka.common.requests.ApiVersionsResponse";

    final ClassLoader cl;
    final Class<?> avr, lt, apiKeys, nav, rv;
    final String release;
    final File recordedDir;

    AdvertisedApis(ClassLoader cl, String release, File recordedDir) throws Exception {
        this.cl = cl;
        this.release = release;
        this.recordedDir = recordedDir;
        avr = Class.forName(AVR, true, cl);
        lt = Class.forName("org.apache.kafka.common.message.ApiMessageType$ListenerType", true, cl);
        apiKeys = Class.forName("org.apache.kafka.common.protocol.ApiKeys", true, cl);
        nav = Class.forName("org.apache.kafka.clients.NodeApiVersions", true, cl);
        rv = optionalClass("org.apache.kafka.common.record.RecordVersion");
    }

    Class<?> optionalClass(String name) {
        try {
            return Class.forName(name, true, cl);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    Object listener(String name) {
        for (Object c : lt.getEnumConstants()) if (((Enum<?>) c).name().equals(name)) return c;
        return null;
    }

    /** The public static method of ApiVersionsResponse named `name` whose parameter types are `types`. */
    Method find(String name, Class<?>... types) {
        for (Method m : avr.getMethods()) {
            if (!m.getName().equals(name) || !Modifier.isStatic(m.getModifiers())) continue;
            Class<?>[] p = m.getParameterTypes();
            if (p.length != types.length) continue;
            boolean ok = true;
            for (int i = 0; i < p.length; i++) ok &= p[i] == types[i];
            if (ok) return m;
        }
        return null;
    }

    Object recordVersion() throws Exception {
        try {
            return rv.getMethod("current").invoke(null);
        } catch (NoSuchMethodException e) {
            return rv.getField("V2").get(null);
        }
    }

    /** key -> {min, max} of an ApiVersionCollection (or of ApiVersionsResponse.data().apiKeys()). */
    static TreeMap<Integer, int[]> ranges(Object collection) throws Exception {
        TreeMap<Integer, int[]> out = new TreeMap<>();
        for (Object v : (Iterable<?>) collection) {
            Class<?> c = v.getClass();
            int key = ((Number) c.getMethod("apiKey").invoke(v)).intValue();
            int min = ((Number) c.getMethod("minVersion").invoke(v)).intValue();
            int max = ((Number) c.getMethod("maxVersion").invoke(v)).intValue();
            out.put(key, new int[] {min, max});
        }
        return out;
    }

    Object controllerCollection(boolean unstable) throws Exception {
        Object ctl = listener("CONTROLLER");
        Object set = apiKeys.getMethod("apisForListener", lt).invoke(null, ctl);
        Method m;
        if ((m = find("collectApis", lt, Set.class, boolean.class)) != null) return m.invoke(null, ctl, set, unstable);
        if ((m = find("collectApis", Set.class, boolean.class)) != null) return m.invoke(null, set, unstable);
        if ((m = find("collectApis", Set.class)) != null) return m.invoke(null, set);
        throw new IllegalStateException("no collectApis");
    }

    TreeMap<Integer, int[]> controller(boolean unstable) throws Exception {
        return ranges(controllerCollection(unstable));
    }

    /** The controller's answer as the broker holds it: a NodeApiVersions. */
    Object nodeApiVersions(Object collection) throws Exception {
        for (Constructor<?> c : nav.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 0 || p[0] != Collection.class) continue;
            Object[] args = new Object[p.length];
            args[0] = collection;
            for (int i = 1; i < p.length; i++) {
                if (p[i] == Collection.class) args[i] = Collections.emptyList();
                else if (p[i] == boolean.class) args[i] = false; // zkMigrationEnabled
                else if (p[i] == long.class) args[i] = -1L;
                else { args = null; break; }
            }
            if (args != null) return c.newInstance(args);
        }
        throw new IllegalStateException("no NodeApiVersions constructor");
    }

    Object features() throws Exception {
        Class<?> f = Class.forName("org.apache.kafka.common.feature.Features", true, cl);
        return f.getMethod("emptySupportedFeatures").invoke(null);
    }

    TreeMap<Integer, int[]> broker(boolean unstable, boolean telemetry) throws Exception {
        Object b = listener("BROKER");
        Object c = controllerCollection(unstable);
        Object n = nodeApiVersions(c);
        Method m;
        if ((m = find("controllerApiVersions", nav, lt, boolean.class, boolean.class)) != null)
            return ranges(m.invoke(null, n, b, unstable, telemetry));
        if ((m = find("controllerApiVersions", rv, nav, lt, boolean.class, boolean.class)) != null)
            return ranges(m.invoke(null, recordVersion(), n, b, unstable, telemetry));
        Class<?> feat = optionalClass("org.apache.kafka.common.feature.Features");
        // createApiVersionsResponse(throttle, minRecordVersion, supportedFeatures, finalizedFeatures,
        // finalizedFeaturesEpoch, controllerApiVersions, listenerType, ...flags)
        if ((m = find("createApiVersionsResponse", int.class, rv, feat, Map.class, long.class, nav, lt,
                boolean.class, boolean.class, boolean.class)) != null)
            return data(m.invoke(null, 0, recordVersion(), features(), Collections.emptyMap(), -1L, n, b, unstable, false, telemetry));
        if ((m = find("createApiVersionsResponse", int.class, rv, feat, Map.class, long.class, nav, lt,
                boolean.class, boolean.class)) != null)
            return data(m.invoke(null, 0, recordVersion(), features(), Collections.emptyMap(), -1L, n, b, unstable, false));
        if ((m = find("createApiVersionsResponse", int.class, rv, feat, Map.class, long.class, nav, lt,
                boolean.class)) != null)
            return data(m.invoke(null, 0, recordVersion(), features(), Collections.emptyMap(), -1L, n, b, unstable));
        if ((m = find("createApiVersionsResponse", int.class, rv, feat, Map.class, long.class, nav, lt)) != null)
            return data(m.invoke(null, 0, recordVersion(), features(), Collections.emptyMap(), -1L, n, b));
        // Releases whose broker composes its answer in its Scala core (3.0.x to 3.2.x), not
        // from these methods: their answers differ from any the clients jar computes (3.0 and
        // 3.1 add Envelope, none lists DescribeQuorum), so the broker's recorded answer is read,
        // with the release's own parser.
        return recorded(release);
    }

    /** A recorded answer of the release's KRaft broker: RECORDED/RELEASE-broker-v3.bin. */
    TreeMap<Integer, int[]> recorded(String release) throws Exception {
        File f = new File(recordedDir, release + "-broker-v3.bin");
        if (!f.exists())
            throw new IllegalStateException(release + ": its broker composes its ApiVersions answer in its core; record it"
                    + " with tests/broker/capture-api-versions.sh " + release + " (" + f + ")");
        byte[] frame = java.nio.file.Files.readAllBytes(f.toPath());
        // After the size and the response header (correlation id).
        java.nio.ByteBuffer body = java.nio.ByteBuffer.wrap(frame, 8, frame.length - 8).slice();
        Object r = avr.getMethod("parse", java.nio.ByteBuffer.class, short.class).invoke(null, body, (short) 3);
        return data(r);
    }

    TreeMap<Integer, int[]> data(Object response) throws Exception {
        Object d = response.getClass().getMethod("data").invoke(response);
        return ranges(d.getClass().getMethod("apiKeys").invoke(d));
    }

    TreeMap<Integer, int[]> zkBroker(boolean unstable, boolean telemetry) throws Exception {
        Object z = listener("ZK_BROKER");
        Method m;
        if ((m = find("filterApis", rv, lt, boolean.class, boolean.class)) != null)
            return ranges(m.invoke(null, recordVersion(), z, unstable, telemetry));
        if ((m = find("filterApis", rv, lt, boolean.class)) != null)
            return ranges(m.invoke(null, recordVersion(), z, unstable));
        if ((m = find("filterApis", rv, lt)) != null) return ranges(m.invoke(null, recordVersion(), z));
        throw new IllegalStateException("no filterApis");
    }

    interface Answer {
        TreeMap<Integer, int[]> get(boolean unstable, boolean telemetry) throws Exception;
    }

    String name(int key) throws Exception {
        Object k = apiKeys.getMethod("forId", int.class).invoke(null, key);
        return (String) apiKeys.getField("name").get(k);
    }

    void print(String release, String node, Answer a) throws Exception {
        TreeMap<Integer, int[]> plain = a.get(false, false);
        TreeMap<Integer, int[]> unstable = a.get(true, false);
        TreeMap<Integer, int[]> telemetry = a.get(false, true);
        TreeMap<Integer, int[]> all = new TreeMap<>(unstable);
        all.putAll(telemetry);
        all.putAll(plain);
        for (Map.Entry<Integer, int[]> e : all.entrySet()) {
            int key = e.getKey();
            int[] p = plain.get(key), u = unstable.get(key), t = telemetry.get(key);
            String when;
            int[] r;
            if (p != null) {
                when = "always";
                r = p;
            } else if (t != null) {
                when = "telemetry";
                r = t;
            } else {
                when = "unstable";
                r = u;
            }
            int umax = u != null ? u[1] : r[1];
            if (u != null && u[0] != r[0])
                throw new IllegalStateException(release + " " + node + " " + key + ": unstable changes the lowest version");
            if (p != null && t != null && (t[0] != p[0] || t[1] != p[1]))
                throw new IllegalStateException(release + " " + node + " " + key + ": telemetry changes the range");
            System.out.println(release + "\t" + node + "\t" + key + "\t" + name(key) + "\t" + r[0] + "\t" + r[1]
                    + "\t" + umax + "\t" + when);
        }
    }

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        File recordedDir = new File(args[1]);
        for (int i = 2; i < args.length; i++) {
            String release = args[i];
            File[] jars = new File(dir, release).listFiles((d, n) -> n.endsWith(".jar"));
            List<URL> urls = new ArrayList<>();
            for (File j : jars) urls.add(j.toURI().toURL());
            try (URLClassLoader cl = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
                AdvertisedApis t = new AdvertisedApis(cl, release, recordedDir);
                if (t.listener("ZK_BROKER") != null) t.print(release, "zk-broker", t::zkBroker);
                t.print(release, "broker", t::broker);
                t.print(release, "controller", (u, tel) -> t.controller(u));
            }
        }
    }
}
