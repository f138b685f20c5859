/*
 * kipviz's consumer memory probe: runs a real Apache Kafka Java consumer (kafka-clients 3.9.x or
 * 4.x, classic or the new AsyncKafkaConsumer) and reports, as JSON lines on stdout, how many bytes
 * of fetch responses the consumer keeps reachable, sampled just before each poll().
 *
 * Usage: java -cp <classes>:<kafka lib>/* ConsumerProbe <config.json>
 *
 * What is counted ("reachable_bytes"): the DISTINCT backing arrays of
 *   - every CompletedFetch in FetchBuffer.completedFetches (the queue) and FetchBuffer.nextInLineFetch
 *     (its FetchResponseData.PartitionData.records() is a MemoryRecords whose buffer() is a slice
 *     of the whole response's receive buffer, so all partitions of one response share one array),
 *   - every NetworkReceive held by the network Selector (KafkaChannel.receive of each channel and
 *     closing channel, and Selector.completedReceives) whose buffer is allocated (the size header
 *     has arrived: NetworkReceive allocates the whole buffer once the size is known).
 * The objects are found by a bounded reflective walk from the KafkaConsumer over declared fields
 * (java.* classes are entered only through the public Collection/Map/array/Optional APIs, so no
 * --add-opens is needed); FetchBuffer is read while holding its own `lock`.
 *
 * Everything printed by libraries to System.out goes to stderr: stdout carries only JSON lines.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

public final class ConsumerProbe {

    static final String FETCH_BUFFER = "org.apache.kafka.clients.consumer.internals.FetchBuffer";
    static final String COMPLETED_FETCH = "org.apache.kafka.clients.consumer.internals.CompletedFetch";
    static final String NETWORK_RECEIVE = "org.apache.kafka.common.network.NetworkReceive";
    static final String SELECTOR = "org.apache.kafka.common.network.Selector";

    static final ObjectMapper JSON = new ObjectMapper();
    static final boolean DEBUG = Boolean.getBoolean("kipviz.probe.debug");
    static PrintStream out;

    public static void main(String[] args) throws Exception {
        // stdout carries JSON lines only: anything a library prints goes to stderr
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 1) {
            System.err.println("usage: ConsumerProbe <config.json>");
            System.exit(2);
        }
        JsonNode cfg = JSON.readTree(new File(args[0]));
        new ConsumerProbe(cfg).run();
    }

    // ---------------------------------------------------------------- configuration

    final JsonNode cfg;
    final int polls;
    final long pollTimeoutMs;
    final long sleepMs;
    final int heapEvery;
    final int walkEvery;
    final int stopWhenIdle;
    final long peakSamplerMs;
    final long startNanos = System.nanoTime();

    ConsumerProbe(JsonNode cfg) {
        this.cfg = cfg;
        this.polls = cfg.path("polls").asInt(200);
        this.pollTimeoutMs = cfg.path("poll_timeout_ms").asLong(200);
        this.sleepMs = cfg.path("sleep_ms_between_polls").asLong(0);
        this.heapEvery = cfg.path("heap_every").asInt(0);
        this.walkEvery = cfg.path("walk_every").asInt(0);
        this.stopWhenIdle = cfg.path("stop_when_idle_polls").asInt(0);
        this.peakSamplerMs = cfg.path("peak_sampler_ms").asLong(0);
    }

    static List<TopicPartition> partitions(JsonNode list) {
        List<TopicPartition> tps = new ArrayList<>();
        if (list != null && list.isArray()) {
            for (JsonNode tp : list) {
                tps.add(new TopicPartition(tp.get(0).asText(), tp.get(1).asInt()));
            }
        }
        return tps;
    }

    static ArrayNode tpArray(Collection<TopicPartition> tps) {
        ArrayNode a = JSON.createArrayNode();
        for (TopicPartition tp : tps) {
            a.add(JSON.createArrayNode().add(tp.topic()).add(tp.partition()));
        }
        return a;
    }

    long tMs() {
        return (System.nanoTime() - startNanos) / 1_000_000L;
    }

    static void emit(ObjectNode line) throws Exception {
        out.println(JSON.writeValueAsString(line));
        out.flush();
    }

    // ---------------------------------------------------------------- the run

    void run() throws Exception {
        Properties props = new Properties();
        JsonNode cc = cfg.path("consumer_config");
        for (Map.Entry<String, JsonNode> e : cc.properties()) {
            props.put(e.getKey(), e.getValue().asText());
        }
        props.put("bootstrap.servers", cfg.path("bootstrap_servers").asText());
        props.put("client.id", "kipviz-probe");
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());

        List<TopicPartition> assign = partitions(cfg.get("assign"));
        Set<TopicPartition> toPause = new HashSet<>(partitions(cfg.get("pause")));
        if (assign.isEmpty()) {
            throw new IllegalArgumentException("config has no \"assign\" partitions");
        }

        long maxReachable = 0;
        int maxResponses = 0;
        long maxHeap = -1;
        long totalRecords = 0;
        int pollsDone = 0;
        boolean coexisted = false;
        long maxPeak = 0;
        int maxPeakResponses = 0;
        boolean peakCoexisted = false;

        // "seek_offset": seek every partition to that offset instead of seekToBeginning, so
        // that every position is known at once (seekToBeginning waits for each leader's
        // ListOffsets, and a fetch to the broker that answered first goes out without the others)
        long seekOffset = cfg.path("seek_offset").asLong(-1);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(assign);
            if (seekOffset >= 0) {
                for (TopicPartition tp : assign) consumer.seek(tp, seekOffset);
            } else {
                consumer.seekToBeginning(assign);
            }
            Targets targets = new Targets(consumer);
            targets.discover();
            long baseline = heapAfterGc();

            ObjectNode start = JSON.createObjectNode();
            start.put("type", "start");
            start.put("kafka_clients", clientsVersion());
            Object delegate = targets.delegate;
            start.put("consumer_class", delegate == null ? consumer.getClass().getName()
                                                         : delegate.getClass().getName());
            start.put("baseline_heap_bytes", baseline);
            start.put("fetch_buffers_found", targets.fetchBuffers.size());
            start.put("selectors_found", targets.selectors.size());
            start.put("discovery_objects", targets.lastWalkObjects);
            start.put("discovery_ms", targets.lastWalkMs);
            emit(start);

            PeakSampler peak = null;
            if (peakSamplerMs > 0) {
                peak = new PeakSampler(targets, peakSamplerMs);
                peak.start();
            }

            int prevRecords = 0;
            List<TopicPartition> prevPartitions = new ArrayList<>();
            long prevBytes = 0;
            boolean seenRecords = false;
            int idle = 0;
            Set<TopicPartition> paused = new LinkedHashSet<>();

            for (int i = 0; i <= polls; i++) {
                boolean last = i == polls;
                if (targets.selectors.isEmpty() || targets.fetchBuffers.isEmpty() || i < 3) {
                    targets.discover();
                }
                long s0 = System.nanoTime();
                Snapshot snap = targets.snapshot();
                long sampleMs = (System.nanoTime() - s0) / 1_000_000L;

                ObjectNode line = JSON.createObjectNode();
                line.put("type", "sample");
                line.put("poll", i);
                line.put("t_ms", tMs());
                snap.fill(line);
                line.put("sample_ms", sampleMs);
                if (heapEvery > 0 && i % heapEvery == 0) {
                    long used = heapAfterGc() - baseline;
                    line.put("heap_used_bytes", used);
                    maxHeap = Math.max(maxHeap, used);
                } else {
                    line.putNull("heap_used_bytes");
                }
                if (walkEvery > 0 && i % walkEvery == 0) {
                    Walker w = new Walker(65536);
                    w.walk(consumer, 500_000);
                    line.put("walk_large_array_bytes", w.largeArrayBytes);
                    line.put("walk_large_arrays", w.largeArrays.size());
                    line.put("walk_objects", w.visited.size());
                    line.put("walk_ms", w.ms);
                    w.release();
                }
                line.put("records_returned_by_previous_poll", prevRecords);
                line.set("partitions_returned", tpArray(prevPartitions));
                line.put("bytes_returned", prevBytes);
                line.set("paused", tpArray(paused));
                if (peak != null) {
                    PeakSampler.Peak p = peak.takePeak();
                    ObjectNode pk = line.putObject("peak_during_previous_poll");
                    pk.put("reachable_bytes", p.bytes);
                    pk.put("responses", p.responses);
                    pk.put("consumed_next_in_line_with_other_response", p.coexisted);
                    pk.put("samples", p.samples);
                    pk.put("failed_samples", p.failed);
                    maxPeak = Math.max(maxPeak, p.bytes);
                    maxPeakResponses = Math.max(maxPeakResponses, p.responses);
                    peakCoexisted |= p.coexisted;
                }
                if (last) {
                    line.put("after_last_poll", true);
                }
                emit(line);
                maxReachable = Math.max(maxReachable, snap.reachableBytes);
                maxResponses = Math.max(maxResponses, snap.responses.size());
                coexisted |= snap.coexisted();
                if (last) {
                    break;
                }

                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(pollTimeoutMs));
                pollsDone++;
                prevRecords = records.count();
                prevBytes = 0;
                prevPartitions = new ArrayList<>();
                TopicPartition lastTp = null;
                Set<TopicPartition> returned = new LinkedHashSet<>();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (!tp.equals(lastTp)) {
                        prevPartitions.add(tp);
                        lastTp = tp;
                    }
                    returned.add(tp);
                    prevBytes += (r.key() == null ? 0 : r.key().length)
                               + (r.value() == null ? 0 : r.value().length);
                }
                totalRecords += prevRecords;
                List<TopicPartition> pauseNow = new ArrayList<>();
                for (TopicPartition tp : returned) {
                    if (toPause.contains(tp) && !paused.contains(tp)) {
                        pauseNow.add(tp);
                    }
                }
                records = null;   // the application is done with them: not counted in the heap
                if (!pauseNow.isEmpty()) {
                    consumer.pause(pauseNow);
                    paused.addAll(pauseNow);
                }
                if (prevRecords > 0) {
                    seenRecords = true;
                    idle = 0;
                } else if (seenRecords) {
                    idle++;
                }
                if (sleepMs > 0) {
                    Thread.sleep(sleepMs);
                }
                if (stopWhenIdle > 0 && idle >= stopWhenIdle) {
                    // the next iteration takes the trailing sample and stops
                    i = polls - 1;
                }
            }
            if (peak != null) {
                peak.halt();
            }
        }

        ObjectNode summary = JSON.createObjectNode();
        summary.put("type", "summary");
        summary.put("polls", pollsDone);
        summary.put("records", totalRecords);
        summary.put("max_reachable_bytes", maxReachable);
        summary.put("max_responses", maxResponses);
        if (maxHeap >= 0) {
            summary.put("max_heap_used_bytes", maxHeap);
        } else {
            summary.putNull("max_heap_used_bytes");
        }
        summary.put("consumed_next_in_line_with_other_response", coexisted);
        if (peakSamplerMs > 0) {
            summary.put("max_peak_reachable_bytes", maxPeak);
            summary.put("max_peak_responses", maxPeakResponses);
            summary.put("peak_consumed_next_in_line_with_other_response", peakCoexisted);
        }
        emit(summary);
    }

    /** AppInfoParser.getVersion(): org.apache.kafka.common.utils (3.x) or its internals (4.x). */
    static String clientsVersion() {
        for (String name : new String[] {"org.apache.kafka.common.utils.internals.AppInfoParser",
                                         "org.apache.kafka.common.utils.AppInfoParser"}) {
            try {
                return String.valueOf(Class.forName(name).getMethod("getVersion").invoke(null));
            } catch (ReflectiveOperationException | RuntimeException e) {
                // try the next
            }
        }
        return "unknown";
    }

    static long heapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    // ---------------------------------------------------------------- reflection helpers

    static final Map<Class<?>, Map<String, Field>> FIELDS = new HashMap<>();

    static synchronized Field field(Class<?> c, String name) {
        Map<String, Field> byName = FIELDS.computeIfAbsent(c, k -> new HashMap<>());
        if (byName.containsKey(name)) {
            return byName.get(name);
        }
        Field found = null;
        for (Class<?> k = c; k != null && found == null; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (f.getName().equals(name) && !Modifier.isStatic(f.getModifiers())) {
                    try {
                        f.setAccessible(true);
                        found = f;
                    } catch (RuntimeException e) {
                        // inaccessible (a java.* internal): treated as absent
                    }
                    break;
                }
            }
        }
        byName.put(name, found);
        return found;
    }

    static Object get(Object o, String name) {
        if (o == null) {
            return null;
        }
        Field f = field(o.getClass(), name);
        if (f == null) {
            return null;
        }
        try {
            return f.get(o);
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    static Object call(Object o, String method) {
        if (o == null) {
            return null;
        }
        try {
            Method m = o.getClass().getMethod(method);
            m.setAccessible(true);
            return m.invoke(o);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** The buffer of a CompletedFetch's records: partitionData.records().buffer(). */
    static ByteBuffer recordsBuffer(Object completedFetch) {
        Object pd = get(completedFetch, "partitionData");
        Object records = call(pd, "records");
        Object buf = call(records, "buffer");
        return buf instanceof ByteBuffer ? (ByteBuffer) buf : null;
    }

    // ---------------------------------------------------------------- snapshot of what is held

    static final class Response {
        long bytes;
        String where;      // next_in_line > queued > in_flight
        int partitions;    // CompletedFetches (queue + next in line) backed by this array
        int consumedPartitions;
        boolean inSelector;
        boolean direct;
        boolean noArray;
        int nextInLine;
        int queued;
    }

    static final class Snapshot {
        final IdentityHashMap<Object, Response> byArray = new IdentityHashMap<>();
        final List<Response> responses = new ArrayList<>();
        long reachableBytes;
        long inFlightBytes;
        int queuedFetches;
        boolean nextInLine;
        boolean nextInLineConsumed;
        int failures;
        int fetchBuffers;
        int selectors;

        Response entry(ByteBuffer buf) {
            Object key;
            boolean direct = buf.isDirect();
            boolean noArray = false;
            long len;
            if (buf.hasArray()) {
                key = buf.array();
                len = ((byte[]) key).length;
            } else {
                key = buf;   // direct or read-only: the buffer itself stands for its memory
                noArray = true;
                len = buf.capacity();
            }
            Response r = byArray.get(key);
            if (r == null) {
                r = new Response();
                r.bytes = len;
                r.direct = direct;
                r.noArray = noArray;
                byArray.put(key, r);
                responses.add(r);
            }
            return r;
        }

        void addCompletedFetch(Object cf, boolean isNextInLine) {
            ByteBuffer buf = recordsBuffer(cf);
            if (buf == null) {
                return;
            }
            Response r = entry(buf);
            r.partitions++;
            Object consumed = get(cf, "isConsumed");
            if (Boolean.TRUE.equals(consumed)) {
                r.consumedPartitions++;
            }
            if (isNextInLine) {
                r.nextInLine++;
            } else {
                r.queued++;
            }
        }

        void addReceive(Object receive) {
            if (receive == null) {
                return;
            }
            Object buf = get(receive, "buffer");
            if (!(buf instanceof ByteBuffer) || ((ByteBuffer) buf).capacity() == 0) {
                return;
            }
            entry((ByteBuffer) buf).inSelector = true;
        }

        void finish() {
            // drop the references to the arrays: a snapshot must not keep a response alive
            byArray.clear();
            for (Response r : responses) {
                r.where = r.nextInLine > 0 ? "next_in_line" : r.queued > 0 ? "queued" : "in_flight";
                reachableBytes += r.bytes;
                if (r.partitions == 0) {
                    inFlightBytes += r.bytes;
                }
            }
        }

        /** A consumed next-in-line response held together with at least one other response. */
        boolean coexisted() {
            if (!nextInLineConsumed) {
                return false;
            }
            for (Response r : responses) {
                if (r.nextInLine == 0) {
                    return true;
                }
            }
            return false;
        }

        void fill(ObjectNode line) {
            line.put("reachable_bytes", reachableBytes);
            ArrayNode arr = line.putArray("responses");
            for (Response r : responses) {
                ObjectNode o = arr.addObject();
                o.put("bytes", r.bytes);
                o.put("where", r.where);
                o.put("partitions", r.partitions);
                o.put("consumed_partitions", r.consumedPartitions);
                o.put("queued_partitions", r.queued);
                o.put("in_selector", r.inSelector);
                if (r.direct) {
                    o.put("direct", true);
                }
                if (r.noArray) {
                    o.put("no_array_counted_capacity", true);
                }
            }
            line.put("queued_fetches", queuedFetches);
            line.put("next_in_line", nextInLine);
            line.put("next_in_line_consumed", nextInLineConsumed);
            line.put("in_flight_bytes", inFlightBytes);
            line.put("consumed_next_in_line_with_other_response", coexisted());
            if (failures > 0) {
                line.put("inconsistent_reads_retried", failures);
            }
        }
    }

    // ---------------------------------------------------------------- where the objects are

    static final class Targets {
        final KafkaConsumer<?, ?> consumer;
        final Object delegate;
        final Set<Object> fetchBufferSet = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        final Set<Object> selectorSet = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        volatile List<Object> fetchBuffers = List.of();
        volatile List<Object> selectors = List.of();
        int lastWalkObjects;
        long lastWalkMs;

        Targets(KafkaConsumer<?, ?> consumer) {
            this.consumer = consumer;
            Object d = get(consumer, "delegate");   // KafkaConsumer.delegate (3.7+)
            this.delegate = d;
        }

        /** Bounded walk from the consumer collecting every FetchBuffer and network Selector. */
        synchronized void discover() {
            Walker w = new Walker(Long.MAX_VALUE);
            w.walk(consumer, 300_000);
            lastWalkObjects = w.visited.size();
            lastWalkMs = w.ms;
            fetchBufferSet.addAll(w.fetchBuffers);
            selectorSet.addAll(w.selectors);
            fetchBuffers = List.copyOf(fetchBufferSet);
            selectors = List.copyOf(selectorSet);
        }

        Snapshot snapshot() {
            Snapshot s = new Snapshot();
            s.fetchBuffers = fetchBuffers.size();
            s.selectors = selectors.size();
            for (Object fb : fetchBuffers) {
                List<Object> queue = new ArrayList<>();
                Object nil;
                Lock lock = (Lock) get(fb, "lock");
                if (lock != null) {
                    lock.lock();
                }
                try {
                    Object q = get(fb, "completedFetches");
                    if (q instanceof Collection) {
                        queue.addAll((Collection<?>) q);
                    }
                    nil = get(fb, "nextInLineFetch");
                } finally {
                    if (lock != null) {
                        lock.unlock();
                    }
                }
                s.queuedFetches += queue.size();
                for (Object cf : queue) {
                    s.addCompletedFetch(cf, false);
                }
                if (nil != null) {
                    s.nextInLine = true;
                    s.nextInLineConsumed |= Boolean.TRUE.equals(get(nil, "isConsumed"));
                    s.addCompletedFetch(nil, true);
                }
            }
            for (Object sel : selectors) {
                // the AsyncKafkaConsumer's network thread mutates these maps concurrently:
                // copy them, retrying on a ConcurrentModificationException
                for (int attempt = 0; attempt < 5; attempt++) {
                    try {
                        List<Object> receives = new ArrayList<>();
                        for (String name : new String[] {"channels", "closingChannels"}) {
                            Object m = get(sel, name);
                            if (m instanceof Map) {
                                for (Object ch : new ArrayList<>(((Map<?, ?>) m).values())) {
                                    receives.add(get(ch, "receive"));
                                }
                            }
                        }
                        Object done = get(sel, "completedReceives");
                        if (done instanceof Map) {
                            receives.addAll(new ArrayList<>(((Map<?, ?>) done).values()));
                        }
                        for (Object r : receives) {
                            s.addReceive(r);
                        }
                        break;
                    } catch (ConcurrentModificationException | NullPointerException
                             | ArrayIndexOutOfBoundsException e) {
                        s.failures++;
                    }
                }
            }
            s.finish();
            return s;
        }
    }

    /**
     * A bounded breadth-first walk over declared fields. java.*, javax.*, jdk.* and sun.* objects
     * are entered only through public APIs (Collection, Map, Object[], Optional, AtomicReference);
     * logging and metrics packages are skipped. Records FetchBuffer and Selector instances and,
     * when asked, the distinct heap arrays behind ByteBuffers (and byte[]) of at least minArray
     * bytes.
     */
    static final class Walker {
        final long minArray;
        final IdentityHashMap<Object, Boolean> visited = new IdentityHashMap<>();
        final List<Object> fetchBuffers = new ArrayList<>();
        final List<Object> selectors = new ArrayList<>();
        final IdentityHashMap<Object, Boolean> largeArrays = new IdentityHashMap<>();
        long largeArrayBytes;
        long ms;

        Walker(long minArray) {
            this.minArray = minArray;
        }

        static boolean jdk(String n) {
            return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.")
                || n.startsWith("sun.") || n.startsWith("com.sun.");
        }

        static boolean skipped(String n) {
            return n.startsWith("org.slf4j.") || n.startsWith("org.apache.logging.")
                || n.startsWith("org.apache.log4j.") || n.startsWith("ch.qos.")
                || n.startsWith("org.apache.kafka.common.metrics.") || n.startsWith("com.fasterxml.")
                || n.startsWith("ConsumerProbe") || n.startsWith("scala.");
        }

        /** Forget every object seen (the walk must not keep anything alive). */
        void release() {
            visited.clear();
            largeArrays.clear();
            fetchBuffers.clear();
            selectors.clear();
        }

        void large(Object array, long len) {
            if (len >= minArray && largeArrays.put(array, Boolean.TRUE) == null) {
                largeArrayBytes += len;
            }
        }

        static void push(ArrayDeque<Object> todo, Object o) {
            if (o != null) {
                todo.add(o);
            }
        }

        void walk(Object root, int maxObjects) {
            long t0 = System.nanoTime();
            ArrayDeque<Object> todo = new ArrayDeque<>();
            push(todo, root);
            while (!todo.isEmpty() && visited.size() < maxObjects) {
                Object o = todo.poll();
                if (o == null || visited.put(o, Boolean.TRUE) != null) {
                    continue;
                }
                Class<?> c = o.getClass();
                String n = c.getName();
                try {
                    if (c.isArray()) {
                        if (c.getComponentType().isPrimitive()) {
                            if (o instanceof byte[]) {
                                large(o, ((byte[]) o).length);
                            }
                        } else {
                            int len = Array.getLength(o);
                            for (int i = 0; i < len; i++) {
                                push(todo, Array.get(o, i));
                            }
                        }
                    } else if (o instanceof ByteBuffer) {
                        ByteBuffer b = (ByteBuffer) o;
                        if (b.hasArray()) {
                            large(b.array(), b.array().length);
                        } else {
                            large(b, b.capacity());
                        }
                    } else if (jdk(n)) {
                        if (o instanceof Map) {
                            for (Map.Entry<?, ?> e : new ArrayList<>(((Map<?, ?>) o).entrySet())) {
                                push(todo, e.getKey());
                                push(todo, e.getValue());
                            }
                        } else if (o instanceof Collection) {
                            for (Object e : new ArrayList<>((Collection<?>) o)) {
                                push(todo, e);
                            }
                        } else if (o instanceof Optional) {
                            push(todo, ((Optional<?>) o).orElse(null));
                        } else if (o instanceof AtomicReference) {
                            push(todo, ((AtomicReference<?>) o).get());
                        }
                    } else if (!skipped(n) && !c.isEnum()) {
                        if (n.equals(FETCH_BUFFER)) {
                            fetchBuffers.add(o);
                        } else if (n.equals(SELECTOR)) {
                            selectors.add(o);
                        }
                        for (Class<?> k = c; k != null && !jdk(k.getName()); k = k.getSuperclass()) {
                            for (Field f : k.getDeclaredFields()) {
                                if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                                    continue;
                                }
                                Field g = field(k, f.getName());
                                if (g != null && g.getDeclaringClass() == k) {
                                    push(todo, g.get(o));
                                } else {
                                    try {
                                        f.setAccessible(true);
                                        push(todo, f.get(o));
                                    } catch (RuntimeException | IllegalAccessException e) {
                                        // not readable: skipped
                                    }
                                }
                            }
                        }
                    }
                } catch (IllegalAccessException | RuntimeException e) {
                    // concurrently mutated or unreadable: this object is skipped
                    if (DEBUG) {
                        System.err.println("walk: skipped " + n + ": " + e);
                    }
                }
            }
            ms = (System.nanoTime() - t0) / 1_000_000L;
        }
    }

    // ---------------------------------------------------------------- during poll()

    /**
     * Optional ("peak_sampler_ms" > 0): a daemon thread that snapshots the same objects every few
     * milliseconds, also while poll() runs, and keeps the largest figures since the last sample
     * line. Its reads of the Selector race with the thread doing network I/O (retried on a
     * ConcurrentModificationException); FetchBuffer is read under its lock.
     */
    static final class PeakSampler extends Thread {
        static final class Peak {
            long bytes;
            int responses;
            boolean coexisted;
            int samples;
            int failed;
        }

        final Targets targets;
        final long everyMs;
        volatile boolean running = true;
        Peak current = new Peak();

        PeakSampler(Targets targets, long everyMs) {
            super("kipviz-probe-peak-sampler");
            setDaemon(true);
            this.targets = targets;
            this.everyMs = everyMs;
        }

        synchronized Peak takePeak() {
            Peak p = current;
            current = new Peak();
            return p;
        }

        synchronized void record(Snapshot s) {
            current.samples++;
            current.failed += s.failures;
            current.bytes = Math.max(current.bytes, s.reachableBytes);
            current.responses = Math.max(current.responses, s.responses.size());
            current.coexisted |= s.coexisted();
        }

        void halt() throws InterruptedException {
            running = false;
            join(5000);
        }

        @Override
        public void run() {
            while (running) {
                try {
                    record(targets.snapshot());
                    Thread.sleep(everyMs);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    synchronized (this) {
                        current.failed++;
                    }
                }
            }
        }
    }
}
