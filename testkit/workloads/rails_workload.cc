// SPDX-License-Identifier: Apache-2.0 OR BSD-3-Clause
// Copyright 2026 The stackrec Authors.
#include "rails_workload.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "stackrec_str.h"

namespace demo {
namespace {

constexpr uint32_t kMinDepth = 8;
constexpr uint32_t kMaxDepth = 128;
constexpr uint32_t kNoNode = UINT32_MAX;

using stackrec_workloads::Str;

// splitmix64's finaliser: a fixed, well-mixed hash of a 64-bit key.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

uint64_t Hash(const std::string& s) {  // FNV-1a
  uint64_t h = 0xcbf29ce484222325u;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3u;
  return h;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t Next() { return engine_(); }
  // Uniform in [0, n); the modulo bias is below 2^-50 for the n used here.
  uint64_t Below(uint64_t n) { return engine_() % n; }
  int64_t Between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo + 1)));
  }
  double Unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  bool Chance(double p) { return Unit() < p; }
  // A heavy-tailed weight: most siblings are cold, a few are hot.
  double Hot() {
    const double u = Unit();
    return 0.1 + 4 * u * u * u;
  }
  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Below(N)];
  }

 private:
  std::mt19937_64 engine_;
};

// "Api::V1::UsersController" -> "api/v1/users_controller".
std::string Snake(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == ':') {
      if (i + 1 < name.size() && name[i + 1] == ':') ++i;
      out += '/';
    } else if (c >= 'A' && c <= 'Z') {
      if (!out.empty() && out.back() != '/') out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

// ---- The call tree ---------------------------------------------------------

// What a frame does when a sample lands in it: decides the sample's values.
enum class Work : uint8_t { kCpu, kAlloc, kIo, kIdle };

// A frame as the builders below name it; the file is dir + file.
struct Frame {
  constexpr Frame(const char* name, const char* dir, const char* file, Work work = Work::kCpu)
      : name(name), dir(dir), file(file), work(work) {}
  const char* name;
  const char* dir;
  const char* file;
  Work work;
};

// A calling-context tree. A node is a frame in one context; its stack is the
// path from the root, leaf first. A caller calls a given callee from one line
// wherever it runs, so separately built subtrees share locations exactly as
// the code paths of a real application do.
class CallTree {
 public:
  explicit CallTree(uint64_t seed) : rng_(seed) {}

  // Adds a frame below `parent` (kNoNode: a new root). `stop` is how likely a
  // walk that reaches the node ends there (leaves always end a walk);
  // `weight` is how likely the parent's walk goes on to this child rather
  // than to a sibling. Returns kNoNode, adding nothing, past kMaxDepth.
  uint32_t Add(uint32_t parent, const std::string& name, const std::string& file, Work work,
               double stop, double weight) {
    const uint32_t depth = Depth(parent) + 1;
    if (depth > kMaxDepth) return kNoNode;
    const uint32_t fn = InternFunction(name, file);
    Node n;
    n.function = fn;
    n.parent = parent;
    n.depth = depth;
    n.work = work;
    n.stop = stop;
    n.weight = weight;
    n.self_line = functions_[fn].start_line + rng_.Between(1, 30);
    uint32_t parent_context = kNoNode;
    if (parent != kNoNode) {
      const uint32_t caller = nodes_[parent].function;
      n.call_line = functions_[caller].start_line + 1 +
                    static_cast<int64_t>(Mix(uint64_t{caller} << 32 | fn) % 30);
      parent_context = nodes_[parent].context;
    }
    n.context = Intern(&contexts_, std::make_tuple(parent_context, fn, n.call_line));
    n.stack = Intern(&stacks_, std::make_pair(n.context, n.self_line));
    const uint32_t id = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(n);
    if (parent != kNoNode) nodes_[parent].children.push_back(id);
    return id;
  }

  uint32_t Depth(uint32_t node) const { return node == kNoNode ? 0 : nodes_[node].depth; }
  Work work(uint32_t node) const { return nodes_[node].work; }
  // Equal for nodes whose stacks are equal (same frames, same lines).
  uint32_t stack(uint32_t node) const { return nodes_[node].stack; }
  const std::string& name(uint32_t node) const { return functions_[nodes_[node].function].name; }
  const std::string& file(uint32_t node) const { return functions_[nodes_[node].function].file; }
  size_t size() const { return nodes_.size(); }

  // Where a sample taken while running below `node` lands.
  uint32_t Walk(uint32_t node, Rng& rng) const {
    for (;;) {
      const Node& n = nodes_[node];
      if (n.children.empty() || rng.Chance(n.stop)) return node;
      double total = 0;
      for (uint32_t c : n.children) total += nodes_[c].weight;
      double r = rng.Unit() * total;
      node = n.children.back();
      for (uint32_t c : n.children) {
        r -= nodes_[c].weight;
        if (r < 0) {
          node = c;
          break;
        }
      }
    }
  }

  // The stack of `leaf`, leaf first, as the C API takes it. The strings are
  // owned by the tree; stackrec copies what it keeps.
  void Stack(uint32_t leaf, std::vector<stackrec_location>* out) const {
    out->clear();
    int64_t line = nodes_[leaf].self_line;
    for (uint32_t n = leaf; n != kNoNode; n = nodes_[n].parent) {
      const Function& f = functions_[nodes_[n].function];
      stackrec_location loc{};  // zero mapping and address: a Ruby frame
      loc.function.name = Str(f.name);
      loc.function.filename = Str(f.file);
      loc.function.start_line = f.start_line;
      loc.line = line;
      out->push_back(loc);
      line = nodes_[n].call_line;  // where the caller is
    }
  }

 private:
  struct Function {
    std::string name, file;
    int64_t start_line;
  };
  struct Node {
    uint32_t function = 0, parent = kNoNode, depth = 0;
    uint32_t context = 0, stack = 0;
    int64_t call_line = 0;  // the line of the parent's function calling this
    int64_t self_line = 0;  // the line running when a sample lands here
    Work work = Work::kCpu;
    double stop = 0, weight = 0;
    std::vector<uint32_t> children;
  };

  template <typename Map, typename Key>
  static uint32_t Intern(Map* map, const Key& key) {
    return map->emplace(key, static_cast<uint32_t>(map->size())).first->second;
  }

  uint32_t InternFunction(const std::string& name, const std::string& file) {
    const auto it = function_ids_.find(std::make_pair(name, file));
    if (it != function_ids_.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(functions_.size());
    functions_.push_back({name, file, 3 + static_cast<int64_t>(Hash(name + file) % 400)});
    function_ids_.emplace(std::make_pair(name, file), id);
    return id;
  }

  Rng rng_;
  std::vector<Function> functions_;
  std::map<std::pair<std::string, std::string>, uint32_t> function_ids_;
  std::vector<Node> nodes_;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, uint32_t> contexts_;
  std::map<std::pair<uint32_t, int64_t>, uint32_t> stacks_;
};

// ---- A Rails application ---------------------------------------------------

constexpr char kApp[] = "/app/";
constexpr char kRuby[] = "";  // Ruby's own methods: "<internal:...>", "<cfunc>"
constexpr char kRubyLib[] = "/usr/local/lib/ruby/3.3.0/";
constexpr char kPuma[] = "/usr/local/bundle/gems/puma-6.4.2/lib/puma/";
constexpr char kRack[] = "/usr/local/bundle/gems/rack-3.0.9/lib/rack/";
constexpr char kRackSession[] = "/usr/local/bundle/gems/rack-session-2.0.0/lib/rack/session/";
constexpr char kRailties[] = "/usr/local/bundle/gems/railties-7.1.3/lib/rails/";
constexpr char kActionPack[] = "/usr/local/bundle/gems/actionpack-7.1.3/lib/";
constexpr char kActionView[] = "/usr/local/bundle/gems/actionview-7.1.3/lib/action_view/";
constexpr char kActiveRecord[] = "/usr/local/bundle/gems/activerecord-7.1.3/lib/active_record/";
constexpr char kActiveModel[] = "/usr/local/bundle/gems/activemodel-7.1.3/lib/active_model/";
constexpr char kActiveSupport[] = "/usr/local/bundle/gems/activesupport-7.1.3/lib/active_support/";
constexpr char kArel[] = "/usr/local/bundle/gems/activerecord-7.1.3/lib/arel/";
constexpr char kPg[] = "/usr/local/bundle/gems/pg-1.5.4/lib/pg/";
constexpr char kRedisClient[] = "/usr/local/bundle/gems/redis-client-0.19.1/lib/";
constexpr char kFaraday[] = "/usr/local/bundle/gems/faraday-2.9.0/lib/faraday/";
constexpr char kWarden[] = "/usr/local/bundle/gems/warden-1.2.9/lib/warden/";
constexpr char kBcrypt[] = "/usr/local/bundle/gems/bcrypt-3.1.20/lib/bcrypt/";
constexpr char kI18n[] = "/usr/local/bundle/gems/i18n-1.14.1/lib/";

// From a Puma thread's root to the controller's callbacks: every request
// runs through these frames.
const Frame kRequestPrefix[] = {
    {"Puma::ThreadPool#spawn_thread", kPuma, "thread_pool.rb"},
    {"Kernel#loop", kRuby, "<internal:kernel>"},
    {"Puma::ThreadPool#spawn_thread", kPuma, "thread_pool.rb"},
    {"Puma::Server#process_client", kPuma, "server.rb"},
    {"Puma::Request#handle_request", kPuma, "request.rb"},
    {"Rails::Engine#call", kRailties, "engine.rb"},
    {"ActionDispatch::HostAuthorization#call", kActionPack,
     "action_dispatch/middleware/host_authorization.rb"},
    {"Rack::Sendfile#call", kRack, "sendfile.rb"},
    {"ActionDispatch::Static#call", kActionPack, "action_dispatch/middleware/static.rb"},
    {"ActionDispatch::Executor#call", kActionPack, "action_dispatch/middleware/executor.rb"},
    {"ActiveSupport::Cache::Strategy::LocalCache::Middleware#call", kActiveSupport,
     "cache/strategy/local_cache_middleware.rb"},
    {"Rack::Runtime#call", kRack, "runtime.rb"},
    {"Rack::MethodOverride#call", kRack, "method_override.rb"},
    {"ActionDispatch::RequestId#call", kActionPack, "action_dispatch/middleware/request_id.rb"},
    {"ActionDispatch::RemoteIp#call", kActionPack, "action_dispatch/middleware/remote_ip.rb"},
    {"Rails::Rack::Logger#call", kRailties, "rack/logger.rb"},
    {"ActiveSupport::TaggedLogging#tagged", kActiveSupport, "tagged_logging.rb"},
    {"Rails::Rack::Logger#call_app", kRailties, "rack/logger.rb"},
    {"ActionDispatch::ShowExceptions#call", kActionPack,
     "action_dispatch/middleware/show_exceptions.rb"},
    {"ActionDispatch::DebugExceptions#call", kActionPack,
     "action_dispatch/middleware/debug_exceptions.rb"},
    {"ActionDispatch::Callbacks#call", kActionPack, "action_dispatch/middleware/callbacks.rb"},
    {"ActiveSupport::Callbacks#run_callbacks", kActiveSupport, "callbacks.rb"},
    {"ActionDispatch::Cookies#call", kActionPack, "action_dispatch/middleware/cookies.rb"},
    {"Rack::Session::Abstract::Persisted#call", kRackSession, "abstract/id.rb"},
    {"Rack::Session::Abstract::Persisted#context", kRackSession, "abstract/id.rb"},
    {"Rack::Head#call", kRack, "head.rb"},
    {"Rack::ConditionalGet#call", kRack, "conditional_get.rb"},
    {"Rack::ETag#call", kRack, "etag.rb"},
    {"Rack::TempfileReaper#call", kRack, "tempfile_reaper.rb"},
    {"ActionDispatch::Routing::RouteSet#call", kActionPack, "action_dispatch/routing/route_set.rb"},
    {"ActionDispatch::Journey::Router#serve", kActionPack, "action_dispatch/journey/router.rb"},
    {"ActionDispatch::Routing::RouteSet::Dispatcher#serve", kActionPack,
     "action_dispatch/routing/route_set.rb"},
    {"ActionController::Metal.dispatch", kActionPack, "action_controller/metal.rb"},
    {"ActionController::Metal#dispatch", kActionPack, "action_controller/metal.rb"},
    {"AbstractController::Base#process", kActionPack, "abstract_controller/base.rb"},
    {"ActionView::Rendering#process", kActionView, "rendering.rb"},
    {"ActionController::Instrumentation#process_action", kActionPack,
     "action_controller/metal/instrumentation.rb"},
    {"ActiveSupport::Notifications.instrument", kActiveSupport, "notifications.rb"},
    {"ActionController::Rescue#process_action", kActionPack, "action_controller/metal/rescue.rb"},
    {"AbstractController::Callbacks#process_action", kActionPack,
     "abstract_controller/callbacks.rb"},
    {"ActiveSupport::Callbacks#run_callbacks", kActiveSupport, "callbacks.rb"},
};

// A Puma thread waiting for the next request: the shallowest stack.
const Frame kIdleStack[] = {
    {"Puma::ThreadPool#spawn_thread", kPuma, "thread_pool.rb"},
    {"Kernel#loop", kRuby, "<internal:kernel>"},
    {"Puma::ThreadPool#spawn_thread", kPuma, "thread_pool.rb"},
    {"Thread::Mutex#synchronize", kRuby, "<cfunc>"},
    {"Puma::ThreadPool#spawn_thread", kPuma, "thread_pool.rb"},
    {"Thread::ConditionVariable#wait", kRuby, "<internal:thread_sync>"},
    {"Thread::Mutex#sleep", kRuby, "<cfunc>"},
    {"Kernel#sleep", kRuby, "<cfunc>", Work::kIdle},
};

struct Model {
  const char* name;
  const char* singular;
  const char* plural;
};
const Model kModels[] = {
    {"User", "user", "users"},
    {"Order", "order", "orders"},
    {"LineItem", "line_item", "line_items"},
    {"Product", "product", "products"},
    {"Cart", "cart", "carts"},
    {"Payment", "payment", "payments"},
    {"Address", "address", "addresses"},
    {"Review", "review", "reviews"},
};
enum ModelIndex { kUser, kOrder, kLineItem, kProduct, kCart };

// Application classes are a model's name plus a suffix: OrderSerializer
// lives in /app/serializers/order_serializer.rb.
struct AppKind {
  const char* suffix;
  const char* dir;
  const char* methods[5];
};
const AppKind kAppKinds[] = {
    {"",
     "models",
     {"total_price", "visible_to?", "display_name", "recalculate", "discounted_price"}},
    {"Serializer",
     "serializers",
     {"serializable_hash", "attributes", "associations", "as_json", "links"}},
    {"Presenter", "presenters", {"to_h", "badges", "formatted_total", "summary", "image_urls"}},
    {"Policy", "policies", {"show?", "update?", "resolve", "permitted_attributes", "owner?"}},
    {"Query", "queries", {"call", "results", "filter_by", "sorted", "paginate"}},
    {"Service", "services", {"call", "perform", "build", "apply_discounts", "notify"}},
};

// Ruby's built-ins: leaves, and iterators that run a block.
const Frame kCoreLeaves[] = {
    {"String#gsub", kRuby, "<cfunc>", Work::kAlloc},
    {"Hash#merge", kRuby, "<cfunc>", Work::kAlloc},
    {"Kernel#format", kRuby, "<cfunc>", Work::kAlloc},
    {"Time#strftime", kRuby, "<cfunc>", Work::kAlloc},
    {"BigDecimal#*", kRuby, "<cfunc>"},
    {"Regexp#match?", kRuby, "<cfunc>"},
    {"Array#include?", kRuby, "<cfunc>"},
    {"Class#new", kRuby, "<cfunc>", Work::kAlloc},
};
const Frame kIterators[] = {
    {"Array#each", kRuby, "<internal:array>"},
    {"Array#map", kRuby, "<internal:array>"},
    {"Hash#each", kRuby, "<cfunc>"},
    {"Enumerable#each_with_object", kRuby, "<cfunc>"},
    {"Enumerable#sum", kRuby, "<cfunc>"},
    {"ActiveRecord::Batches#find_each", kActiveRecord, "relation/batches.rb"},
};

enum class Shape { kPage, kApi, kCheckout, kLogin, kSearch };

struct Endpoint {
  const char* route;       // the trace endpoint
  const char* controller;  // its class
  const char* action;
  ModelIndex model;  // what it is mostly about
  Shape shape;       // what it does
  int traffic;       // relative share of requests
  int ticks;         // mean length, in 10 ms ticks
};
const Endpoint kEndpoints[] = {
    {"GET /users/:id", "UsersController", "show", kUser, Shape::kPage, 20, 4},
    {"GET /users", "UsersController", "index", kUser, Shape::kPage, 6, 12},
    {"GET /api/v1/users/:id", "Api::V1::UsersController", "show", kUser, Shape::kApi, 16, 3},
    {"GET /products", "ProductsController", "index", kProduct, Shape::kPage, 14, 15},
    {"GET /products/:id", "ProductsController", "show", kProduct, Shape::kPage, 12, 6},
    {"POST /orders", "OrdersController", "create", kOrder, Shape::kCheckout, 5, 30},
    {"GET /orders/:id", "OrdersController", "show", kOrder, Shape::kApi, 8, 5},
    {"PATCH /carts/:id", "CartsController", "update", kCart, Shape::kApi, 8, 5},
    {"POST /sessions", "SessionsController", "create", kUser, Shape::kLogin, 3, 25},
    {"GET /search", "SearchController", "index", kProduct, Shape::kSearch, 8, 20},
};

constexpr int kMaxAppLevel = 5;        // nested application calls
constexpr int kMaxPartialLevel = 6;    // nested partials
constexpr double kPassThrough = 0.03;  // stop chance of a library frame
constexpr double kAppStop = 0.15;      // stop chance of application code

// Builds the call tree of the application, one subtree per endpoint.
class RailsApp {
 public:
  RailsApp(CallTree* tree, Rng* rng) : tree_(*tree), rng_(*rng) {}

  // The idle stack's leaf.
  uint32_t BuildIdle() {
    uint32_t node = kNoNode;
    for (const Frame& f : kIdleStack) node = Add(node, f, 0, 1);
    return node;
  }

  // The root to walk from for a request to `e`.
  uint32_t BuildEndpoint(const Endpoint& e) {
    uint32_t root = kNoNode, node = kNoNode;
    for (const Frame& f : kRequestPrefix) {
      // No walk ends above kMinDepth; middleware does a little work itself.
      node = Add(node, f, tree_.Depth(node) + 1 < kMinDepth ? 0 : 0.001, 1);
      if (root == kNoNode) root = node;
    }
    if (e.shape != Shape::kLogin) Authenticate(node, 0.6);
    const uint32_t send = Add(node,
                              {"ActionController::BasicImplicitRender#send_action", kActionPack,
                               "action_controller/metal/basic_implicit_render.rb"},
                              0.001, 10);
    const std::string controller(e.controller);
    const uint32_t action = tree_.Add(
        send, controller + "#" + e.action,
        std::string(kApp) + "controllers/" + Snake(controller) + ".rb", Work::kCpu, 0.05, 6);
    Query(action, 2);
    for (int64_t i = rng_.Between(1, 3); i > 0; --i) {
      App(action, 1, rng_.Hot(), &kModels[e.model]);
    }
    switch (e.shape) {
      case Shape::kPage:
        Page(send, e, 5);
        break;
      case Shape::kApi:
        Json(action, 1, 3);
        break;
      case Shape::kCheckout:
        Save(action, 1, 2);
        Http(action, "Faraday::Connection#post", 5);
        break;
      case Shape::kLogin:
        Login(action, 8);
        break;
      case Shape::kSearch:
        Http(action, "Faraday::Connection#get", 4);
        Json(action, 2, 2);
        break;
    }
    return root;
  }

 private:
  uint32_t Add(uint32_t parent, const Frame& f, double stop, double weight) {
    return tree_.Add(parent, f.name, std::string(f.dir) + f.file, f.work, stop, weight);
  }

  // Adds `frames` below `parent`, each calling the next, the first with
  // `weight`. Returns the last, or kNoNode (adding nothing) if the stack
  // would grow past kMaxDepth or if `parent` is kNoNode, so that callers can
  // chain on a chain without checking each step.
  uint32_t Chain(uint32_t parent, std::initializer_list<Frame> frames, double weight) {
    if (parent == kNoNode || tree_.Depth(parent) + frames.size() > kMaxDepth) {
      return kNoNode;
    }
    uint32_t node = parent;
    for (const Frame& f : frames) {
      node = Add(node, f, kPassThrough, node == parent ? weight : 1);
    }
    return node;
  }

  // The same function as `node`, running a block its iterator called.
  uint32_t Block(uint32_t iterator, uint32_t node) {
    return tree_.Add(iterator, tree_.name(node), tree_.file(node), Work::kCpu, kAppStop, 1);
  }

  // Application code: a method of one of the app's classes (about `model`,
  // or any), calling more application code, the database, the cache, Ruby's
  // built-ins.
  void App(uint32_t parent, int level, double weight, const Model* about = nullptr) {
    const Model& model = about != nullptr ? *about : rng_.Pick(kModels);
    const AppKind& kind = rng_.Pick(kAppKinds);
    const std::string cls = std::string(model.name) + kind.suffix;
    const uint32_t node = tree_.Add(parent, cls + "#" + rng_.Pick(kind.methods),
                                    std::string(kApp) + kind.dir + "/" + Snake(cls) + ".rb",
                                    Work::kCpu, kAppStop, weight);
    if (node == kNoNode || level >= kMaxAppLevel) return;
    for (int64_t i = rng_.Between(2, 4); i > 0; --i) {
      const double w = rng_.Hot();
      switch (rng_.Below(10)) {
        case 0:
        case 1:
        case 2:
          App(node, level + 1, w);
          break;
        case 3:
        case 4:
          Query(node, w);
          break;
        case 5:
        case 6: {
          const uint32_t it = Add(node, rng_.Pick(kIterators), kPassThrough, w);
          if (it != kNoNode) {
            const uint32_t block = Block(it, node);
            if (block != kNoNode) App(block, level + 1, 1);
          }
          break;
        }
        case 7:
          Add(node, rng_.Pick(kCoreLeaves), 1, w);
          break;
        case 8:
          Cache(node, level, w);
          break;
        default:
          Add(node, rng_.Pick(kCoreLeaves), 1, w);
          break;
      }
    }
  }

  // An ActiveRecord query: building the SQL, waiting for PostgreSQL,
  // instantiating the records.
  void Query(uint32_t parent, double weight) {
    static const Frame kEntries[] = {
        {"ActiveRecord::Core::ClassMethods#find", kActiveRecord, "core.rb"},
        {"ActiveRecord::FinderMethods#find_by", kActiveRecord, "relation/finder_methods.rb"},
        {"ActiveRecord::Delegation#each", kActiveRecord, "relation/delegation.rb"},
        {"ActiveRecord::Associations::CollectionProxy#records", kActiveRecord,
         "associations/collection_proxy.rb"},
        {"ActiveRecord::Calculations#count", kActiveRecord, "relation/calculations.rb"},
    };
    const uint32_t entry = Add(parent, rng_.Pick(kEntries), kPassThrough, weight);
    if (entry == kNoNode) return;
    const uint32_t exec =
        Chain(entry,
              {{"ActiveRecord::Relation#load", kActiveRecord, "relation.rb"},
               {"ActiveRecord::Relation#exec_queries", kActiveRecord, "relation.rb"}},
              1);
    const uint32_t select =
        Chain(exec,
              {{"ActiveRecord::Relation#exec_main_query", kActiveRecord, "relation.rb"},
               {"ActiveRecord::Querying#_query_by_sql", kActiveRecord, "querying.rb"},
               {"ActiveRecord::ConnectionAdapters::DatabaseStatements#select_all", kActiveRecord,
                "connection_adapters/abstract/database_statements.rb"},
               {"ActiveRecord::ConnectionAdapters::QueryCache#select_all", kActiveRecord,
                "connection_adapters/abstract/query_cache.rb"}},
              7);
    Chain(select,
          {{"ActiveRecord::ConnectionAdapters::DatabaseStatements#select", kActiveRecord,
            "connection_adapters/abstract/database_statements.rb"},
           {"ActiveRecord::ConnectionAdapters::PostgreSQL::DatabaseStatements#"
            "internal_exec_query",
            kActiveRecord, "connection_adapters/postgresql/database_statements.rb"},
           {"ActiveRecord::ConnectionAdapters::AbstractAdapter#log", kActiveRecord,
            "connection_adapters/abstract_adapter.rb"},
           {"ActiveSupport::Notifications::Instrumenter#instrument", kActiveSupport,
            "notifications/instrumenter.rb"},
           {"ActiveRecord::ConnectionAdapters::AbstractAdapter#with_raw_"
            "connection",
            kActiveRecord, "connection_adapters/abstract_adapter.rb"},
           {"PG::Connection#exec_params", kPg, "connection.rb", Work::kIo}},
          6);
    Chain(select,
          {{"ActiveRecord::ConnectionAdapters::DatabaseStatements#to_sql_and_"
            "binds",
            kActiveRecord, "connection_adapters/abstract/database_statements.rb"},
           {"Arel::Visitors::Reduce#accept", kArel, "visitors/reduce.rb"},
           {"Arel::Visitors::ToSql#visit_Arel_Nodes_SelectStatement", kArel, "visitors/to_sql.rb"},
           {"Arel::Visitors::ToSql#visit_Arel_Nodes_SelectCore", kArel, "visitors/to_sql.rb"},
           {"Arel::Collectors::SubstituteBinds#<<", kArel, "collectors/substitute_binds.rb"}},
          1);
    Chain(exec,
          {{"ActiveRecord::Querying#_load_from_sql", kActiveRecord, "querying.rb"},
           {"ActiveRecord::Result#map", kActiveRecord, "result.rb"},
           {"ActiveRecord::Persistence::ClassMethods#instantiate_instance_of", kActiveRecord,
            "persistence.rb"},
           {"ActiveRecord::Core#init_with_attributes", kActiveRecord, "core.rb"},
           {"ActiveModel::AttributeSet::Builder#build_from_database", kActiveModel,
            "attribute_set/builder.rb", Work::kAlloc}},
          2);
  }

  // Rails.cache.fetch: a Redis round trip, decoding the entry, or on a miss
  // the caller's block.
  void Cache(uint32_t parent, int level, double weight) {
    const uint32_t fetch =
        Chain(parent, {{"ActiveSupport::Cache::Store#fetch", kActiveSupport, "cache.rb"}}, weight);
    if (fetch == kNoNode) return;
    Chain(fetch,
          {{"ActiveSupport::Cache::RedisCacheStore#read_entry", kActiveSupport,
            "cache/redis_cache_store.rb"},
           {"ActiveSupport::Cache::RedisCacheStore#failsafe", kActiveSupport,
            "cache/redis_cache_store.rb"},
           {"RedisClient#call_v", kRedisClient, "redis_client.rb"},
           {"RedisClient::RubyConnection#read", kRedisClient, "redis_client/ruby_connection.rb"},
           {"RedisClient::RubyConnection::BufferedIO#fill_buffer", kRedisClient,
            "redis_client/ruby_connection/buffered_io.rb"},
           {"IO#wait_readable", kRuby, "<cfunc>", Work::kIo}},
          4);
    Chain(fetch,
          {{"ActiveSupport::Cache::Entry#value", kActiveSupport, "cache/entry.rb"},
           {"Marshal.load", kRuby, "<cfunc>", Work::kAlloc}},
          1);
    const uint32_t miss = Chain(
        fetch,
        {{"ActiveSupport::Cache::Store#save_block_result_to_cache", kActiveSupport, "cache.rb"}},
        2);
    if (miss == kNoNode) return;
    const uint32_t block = Block(miss, parent);
    if (block != kNoNode) App(block, level + 1, 1);
  }

  // render json: ActiveSupport's encoder walking what the serializers built.
  void Json(uint32_t parent, int level, double weight) {
    const uint32_t encode = Chain(parent,
                                  {{"ActionController::Rendering#render", kActionPack,
                                    "action_controller/metal/rendering.rb"},
                                   {"ActionController::Renderers#_render_to_body_with_renderer",
                                    kActionPack, "action_controller/metal/renderers.rb"},
                                   {"ActiveSupport::ToJsonWithActiveSupportEncoder#to_json",
                                    kActiveSupport, "core_ext/object/json.rb"},
                                   {"ActiveSupport::JSON::Encoding::JSONGemEncoder#encode",
                                    kActiveSupport, "json/encoding.rb"}},
                                  weight);
    if (encode == kNoNode) return;
    uint32_t node = encode;  // jsonify recurses into nested hashes and arrays
    for (int64_t i = rng_.Between(2, 6); i > 0 && node != kNoNode; --i) {
      node = Chain(node,
                   {{"ActiveSupport::JSON::Encoding::JSONGemEncoder#jsonify", kActiveSupport,
                     "json/encoding.rb", Work::kAlloc}},
                   2);
    }
    Chain(encode, {{"JSON::Ext::Generator::GeneratorMethods::Hash#to_json", kRuby, "<cfunc>"}}, 2);
    const uint32_t as_json = Chain(encode,
                                   {{"Hash#as_json", kActiveSupport, "core_ext/object/json.rb"},
                                    {"Array#map", kRuby, "<internal:array>"}},
                                   3);
    if (as_json != kNoNode) App(as_json, level + 1, 1);
  }

  // An HTTP call to a payment gateway or a search cluster: mostly waiting.
  void Http(uint32_t parent, const char* verb, double weight) {
    const uint32_t response =
        Chain(parent,
              {{verb, kFaraday, "connection.rb"},
               {"Faraday::Connection#run_request", kFaraday, "connection.rb"},
               {"Faraday::RackBuilder#build_response", kFaraday, "rack_builder.rb"}},
              weight);
    if (response == kNoNode) return;
    const uint32_t start =
        Chain(response,
              {{"Faraday::Adapter::NetHttp#call", kFaraday, "adapter/net_http.rb"},
               {"Net::HTTP#start", kRubyLib, "net/http.rb"}},
              8);
    if (start == kNoNode) return;
    Chain(start,
          {{"Net::HTTP#do_start", kRubyLib, "net/http.rb"},
           {"Net::HTTP#connect", kRubyLib, "net/http.rb"},
           {"OpenSSL::SSL::SSLSocket#connect_nonblock", kRuby, "<cfunc>"}},
          1);
    Chain(start,
          {{"Net::HTTP#request", kRubyLib, "net/http.rb"},
           {"Net::HTTP#transport_request", kRubyLib, "net/http.rb"},
           {"Net::HTTPResponse.read_new", kRubyLib, "net/http/response.rb"},
           {"Net::BufferedIO#readuntil", kRubyLib, "net/protocol.rb"},
           {"Net::BufferedIO#rbuf_fill", kRubyLib, "net/protocol.rb"},
           {"OpenSSL::Buffering#read_nonblock", kRubyLib, "openssl/buffering.rb"},
           {"IO#wait_readable", kRuby, "<cfunc>", Work::kIo}},
          8);
    Chain(response,
          {{"Faraday::Response::Json#on_complete", kFaraday, "response/json.rb"},
           {"JSON.parse", kRubyLib, "json/common.rb"},
           {"JSON::Ext::Parser#parse", kRuby, "<cfunc>", Work::kAlloc}},
          1);
  }

  // Saving a record in a transaction: validations, the INSERT, the COMMIT.
  void Save(uint32_t parent, int level, double weight) {
    const uint32_t txn =
        Chain(parent,
              {{"ActiveRecord::Transactions#save", kActiveRecord, "transactions.rb"},
               {"ActiveRecord::Transactions#with_transaction_returning_status", kActiveRecord,
                "transactions.rb"},
               {"ActiveRecord::ConnectionAdapters::DatabaseStatements#transaction", kActiveRecord,
                "connection_adapters/abstract/database_statements.rb"},
               {"ActiveRecord::ConnectionAdapters::TransactionManager#"
                "within_new_transaction",
                kActiveRecord, "connection_adapters/abstract/transaction.rb"}},
              weight);
    if (txn == kNoNode) return;
    const uint32_t valid =
        Chain(txn,
              {{"ActiveRecord::Validations#valid?", kActiveRecord, "validations.rb"},
               {"ActiveModel::Validations#run_validations!", kActiveModel, "validations.rb"},
               {"ActiveSupport::Callbacks#run_callbacks", kActiveSupport, "callbacks.rb"}},
              2);
    if (valid != kNoNode) App(valid, level + 1, 1);
    Chain(txn,
          {{"ActiveRecord::Persistence#_create_record", kActiveRecord, "persistence.rb"},
           {"ActiveRecord::Persistence::ClassMethods#_insert_record", kActiveRecord,
            "persistence.rb"},
           {"ActiveRecord::ConnectionAdapters::DatabaseStatements#insert", kActiveRecord,
            "connection_adapters/abstract/database_statements.rb"},
           {"ActiveRecord::ConnectionAdapters::AbstractAdapter#log", kActiveRecord,
            "connection_adapters/abstract_adapter.rb"},
           {"PG::Connection#exec_params", kPg, "connection.rb", Work::kIo}},
          3);
    Chain(txn,
          {{"ActiveRecord::ConnectionAdapters::RealTransaction#commit", kActiveRecord,
            "connection_adapters/abstract/transaction.rb"},
           {"PG::Connection#exec", kPg, "connection.rb", Work::kIo}},
          2);
  }

  // POST /sessions: bcrypt is slow on purpose.
  void Login(uint32_t parent, double weight) {
    Chain(parent,
          {{"User#authenticate", kApp, "models/user.rb"},
           {"BCrypt::Password#==", kBcrypt, "password.rb"},
           {"BCrypt::Engine.hash_secret", kBcrypt, "engine.rb"},
           {"BCrypt::Engine.__bc_crypt", kBcrypt, "engine.rb"}},
          weight);
  }

  // before_action :authenticate_user!: Warden loads the user from the
  // session.
  void Authenticate(uint32_t parent, double weight) {
    const uint32_t load =
        Chain(parent,
              {{"ApplicationController#authenticate_user!", kApp,
                "controllers/application_controller.rb"},
               {"Warden::Proxy#authenticate!", kWarden, "proxy.rb"},
               {"Warden::Proxy#_perform_authentication", kWarden, "proxy.rb"},
               {"Warden::Proxy#user", kWarden, "proxy.rb"},
               {"Warden::SessionSerializer#fetch", kWarden, "session_serializer.rb"},
               {"User.serialize_from_session", kApp, "models/user.rb"}},
              weight);
    if (load != kNoNode) Query(load, 1);
  }

  // The implicit render of an HTML page: the action's template inside the
  // application layout.
  void Page(uint32_t parent, const Endpoint& e, double weight) {
    const uint32_t layout = Chain(
        parent,
        {{"ActionController::ImplicitRender#default_render", kActionPack,
          "action_controller/metal/implicit_render.rb"},
         {"ActionController::Rendering#render", kActionPack,
          "action_controller/metal/rendering.rb"},
         {"AbstractController::Rendering#render", kActionPack, "abstract_controller/rendering.rb"},
         {"ActionController::Renderers#render_to_body", kActionPack,
          "action_controller/metal/renderers.rb"},
         {"ActionView::Rendering#_render_template", kActionView, "rendering.rb"},
         {"ActionView::Renderer#render_to_object", kActionView, "renderer/renderer.rb"},
         {"ActionView::TemplateRenderer#render", kActionView, "renderer/template_renderer.rb"},
         {"ActionView::TemplateRenderer#render_template", kActionView,
          "renderer/template_renderer.rb"},
         {"ActionView::TemplateRenderer#render_with_layout", kActionView,
          "renderer/template_renderer.rb"}},
        weight);
    if (layout == kNoNode) return;
    const std::string dir = Snake(e.controller);  // "users_controller"
    Template(layout, dir.substr(0, dir.size() - 11) + "/" + e.action, 0, 6);
    Template(layout, "layouts/application", kMaxPartialLevel, 1);
  }

  // A compiled ERB template: views/<view>.html.erb.
  void Template(uint32_t parent, const std::string& view, int level, double weight) {
    const uint32_t run =
        Chain(parent,
              {{"ActionView::Template#render", kActionView, "template.rb"},
               {"ActionView::Template#instrument_render_template", kActionView, "template.rb"},
               {"ActiveSupport::Notifications.instrument", kActiveSupport, "notifications.rb"},
               {"ActionView::Base#_run", kActionView, "base.rb"}},
              weight);
    if (run == kNoNode) return;
    std::string method = "ActionView::Base#_app_views_" + view + "_html_erb";
    std::replace(method.begin(), method.end(), '/', '_');
    const uint32_t node = tree_.Add(run, method, std::string(kApp) + "views/" + view + ".html.erb",
                                    Work::kAlloc, 0.1, 1);
    if (node == kNoNode) return;
    // Most of a page is partials, which render partials in turn.
    if (level < kMaxPartialLevel && rng_.Chance(0.8)) {
      Partial(node, level + 1, 3 * rng_.Hot());
    }
    for (int64_t i = rng_.Between(1, 3); i > 0; --i) {
      const double w = rng_.Hot();
      switch (rng_.Below(8)) {
        case 0:
        case 1:
          if (level < kMaxPartialLevel) {
            Partial(node, level + 1, w);
          } else {
            Helper(node, w);
          }
          break;
        case 2:
        case 3:
          Helper(node, w);
          break;
        case 4:
          App(node, 2, w);
          break;
        case 5:
          Query(node, w);
          break;  // an N+1 query
        case 6:
          Cache(node, 2, w);
          break;
        default:
          Helper(node, w);
          break;
      }
    }
  }

  void Partial(uint32_t parent, int level, double weight) {
    const Model& m = rng_.Pick(kModels);
    const uint32_t node = Chain(
        parent,
        {{"ActionView::Helpers::RenderingHelper#render", kActionView,
          "helpers/rendering_helper.rb"},
         {"ActionView::Renderer#render_partial_to_object", kActionView, "renderer/renderer.rb"},
         {"ActionView::CollectionRenderer#render_collection_with_partial", kActionView,
          "renderer/collection_renderer.rb"},
         {"ActionView::CollectionRenderer#collection_with_template", kActionView,
          "renderer/collection_renderer.rb"},
         {"Array#map", kRuby, "<internal:array>"}},
        weight);
    if (node == kNoNode) return;
    Template(node, std::string(m.plural) + "/_" + m.singular, level, 1);
  }

  // View helpers, down to where they spend their time.
  void Helper(uint32_t parent, double weight) {
    switch (rng_.Below(4)) {
      case 0:
        Chain(parent,
              {{"ActionView::Helpers::UrlHelper#link_to", kActionView, "helpers/url_helper.rb"},
               {"ActionDispatch::Routing::RouteSet::NamedRouteCollection::"
                "UrlHelper#call",
                kActionPack, "action_dispatch/routing/route_set.rb"},
               {"ActionDispatch::Routing::RouteSet#url_for", kActionPack,
                "action_dispatch/routing/route_set.rb"},
               {"ActionDispatch::Journey::Formatter#generate", kActionPack,
                "action_dispatch/journey/formatter.rb"}},
              weight);
        break;
      case 1:
        Chain(parent,
              {{"ActionView::Helpers::NumberHelper#number_to_currency", kActionView,
                "helpers/number_helper.rb"},
               {"ActiveSupport::NumberHelper::NumberConverter#execute", kActiveSupport,
                "number_helper/number_converter.rb"},
               {"ActiveSupport::NumberHelper::NumberToCurrencyConverter#convert", kActiveSupport,
                "number_helper/number_to_currency_converter.rb", Work::kAlloc}},
              weight);
        break;
      case 2:
        Chain(parent,
              {{"AbstractController::Translation#translate", kActionPack,
                "abstract_controller/translation.rb"},
               {"I18n::Base#translate", kI18n, "i18n.rb"},
               {"I18n::Backend::Simple::Implementation#lookup", kI18n, "i18n/backend/simple.rb"}},
              weight);
        break;
      default:
        Chain(parent,
              {{"ActionView::OutputBuffer#<<", kActionView, "buffers.rb"},
               {"ERB::Util.unwrapped_html_escape", kActiveSupport, "core_ext/erb/util.rb"},
               {"CGI.escapeHTML", kRuby, "<cfunc>", Work::kAlloc}},
              weight);
        break;
    }
  }

  CallTree& tree_;
  Rng& rng_;
};

// One sample's values, from what its leaf frame does.
void SampleValues(Work work, Rng& rng, int64_t values[kSampleTypes]) {
  // The sampler fires a little late, as real ones do.
  const int64_t wall = kPeriodNs - 100000 + rng.Between(0, 800000);
  double on_cpu = 0, alloc = 0;
  switch (work) {
    case Work::kCpu:
      on_cpu = 0.8 + 0.2 * rng.Unit();
      alloc = 0.05;
      break;
    case Work::kAlloc:
      on_cpu = 0.75 + 0.25 * rng.Unit();
      alloc = 0.6;
      break;
    case Work::kIo:
      on_cpu = rng.Chance(0.08) ? 0.1 * rng.Unit() : 0;
      break;
    case Work::kIdle:
      break;
  }
  values[kWallTime] = wall;
  values[kCpuTime] = static_cast<int64_t>(static_cast<double>(wall) * on_cpu);
  values[kCpuSamples] = values[kCpuTime] > 0 ? 1 : 0;
  values[kAllocSamples] = rng.Chance(alloc) ? rng.Between(1, 3) : 0;
}

}  // namespace

struct RailsWorkload::State {
  struct Thread {
    int64_t id = 0;
    std::string name;
    int64_t span = 0;  // 0: idle
    size_t endpoint = 0;
    int64_t request = 0;
    int64_t ticks_left = 0;
  };

  State(uint64_t seed, int thread_count) : rng(seed), tree(Mix(seed)) {
    RailsApp app(&tree, &rng);
    idle = app.BuildIdle();
    for (const Endpoint& e : kEndpoints) {
      roots.push_back(app.BuildEndpoint(e));
      traffic += e.traffic;
    }
    threads.resize(static_cast<size_t>(thread_count));
    for (size_t i = 0; i < threads.size(); ++i) {
      threads[i].id = 28411 + static_cast<int64_t>(i);
      threads[i].name = "puma worker " + std::to_string(i);
    }
  }

  Rng rng;
  CallTree tree;
  uint32_t idle = kNoNode;
  std::vector<uint32_t> roots;  // per endpoint
  int64_t traffic = 0;
  std::vector<Thread> threads;
  size_t next_thread = 0;
  int64_t requests = 0;
  std::vector<stackrec_location> locations;
};

RailsWorkload::RailsWorkload(uint64_t seed, int threads)
    : state_(std::make_unique<State>(seed, threads)) {}

RailsWorkload::~RailsWorkload() = default;

size_t RailsWorkload::endpoints() const { return state_->roots.size(); }

size_t RailsWorkload::call_tree_nodes() const { return state_->tree.size(); }

const Tick& RailsWorkload::Next() {
  State& s = *state_;
  const size_t index = s.next_thread;
  s.next_thread = (s.next_thread + 1) % s.threads.size();
  State::Thread& t = s.threads[index];
  tick_.request_started = false;
  if (t.ticks_left == 0) {  // the request or the wait is over: what next?
    if (s.rng.Chance(0.3)) {
      t.span = 0;
      t.request = 0;
      t.ticks_left = s.rng.Between(1, 10);
    } else {
      int64_t r = s.rng.Between(0, s.traffic - 1);
      size_t e = 0;
      while (r >= kEndpoints[e].traffic) r -= kEndpoints[e++].traffic;
      t.endpoint = e;
      t.span = static_cast<int64_t>(s.rng.Next() >> 1) | 1;  // a tracer's id
      t.request = ++s.requests;
      const int64_t mean = kEndpoints[e].ticks;
      t.ticks_left = s.rng.Between((mean + 1) / 2, mean + mean / 2);
      tick_.request_started = true;
    }
  }
  --t.ticks_left;

  const uint32_t leaf = t.span == 0 ? s.idle : s.tree.Walk(s.roots[t.endpoint], s.rng);
  s.tree.Stack(leaf, &s.locations);
  SampleValues(s.tree.work(leaf), s.rng, tick_.values);
  tick_.locations = s.locations.data();
  tick_.locations_len = s.locations.size();
  tick_.thread_id = t.id;
  tick_.thread_name = &t.name;
  tick_.span_id = t.span;
  tick_.endpoint = t.span == 0 ? nullptr : kEndpoints[t.endpoint].route;
  tick_.stack = s.tree.stack(leaf);
  tick_.depth = s.tree.Depth(leaf);
  tick_.request = t.request;
  tick_.thread = static_cast<int>(index);
  return tick_;
}

}  // namespace demo
