"""The words of the A1 grammar (:mod:`.a1`): a first-year class's English, with the French and the Chinese a teacher
of each language writes for them.

Why tables: a teacher reads and corrects them line by line. Each noun carries what French needs (gender, an irregular
plural, whether it elides: l'école, but le hibou) and what Chinese needs (the word and its measure word: 一只猫,
一本书, 一杯茶); each adjective its four French forms, its place (before or after the noun), the forms French uses
before a vowel (un bel arbre, un vieil homme), and how Chinese puts it before a noun (小狗, 漂亮的房子) and after
"to be" (很小, 是黑色的); each verb its six French present forms, infinitive, and its Chinese word.
"""

from __future__ import annotations

from dataclasses import dataclass

# --------------------------------------------------------------------------------------------- nouns
# en | en plural (- : +s/es/ies) | fr | gender | fr plural (- : +s, -eau/-eu +x, -al +aux) | zh | measure word (- : mass) | kind
# A French or Chinese word of several words is written with "_" between them (salle_de_classe: three tokens).
_NOUNS = """
man men homme m - 男人 个 person
woman women femme f - 女人 个 person
boy - garçon m - 男孩 个 person
girl - fille f - 女孩 个 person
child children enfant m - 孩子 个 person
baby babies bébé m - 宝宝 个 person
friend - ami m - 朋友 个 person
teacher - professeur m - 老师 位 person
student - élève m - 学生 个 person
doctor - médecin m - 医生 位 person
nurse - infirmière f - 护士 位 person
farmer - fermier m - 农民 个 person
baker - boulanger m - 面包师 个 person
cook - cuisinier m - 厨师 个 person
driver - chauffeur m - 司机 个 person
policeman policemen policier m - 警察 个 person
king - roi m - 国王 个 person
queen - reine f - 王后 个 person
neighbour - voisin m - 邻居 个 person
lady ladies dame f - 女士 位 person
mother - mère f - 妈妈 个 family
father - père m - 爸爸 个 family
mum - maman f - 妈妈 个 family
dad - papa m - 爸爸 个 family
sister - sœur f - 姐姐 个 family
brother - frère m - 哥哥 个 family
grandmother - grand-mère f grands-mères 奶奶 个 family
grandfather - grand-père m grands-pères 爷爷 个 family
aunt - tante f - 阿姨 个 family
uncle - oncle m - 叔叔 个 family
cousin - cousin m - 表哥 个 family
son - fils m fils 儿子 个 family
daughter - fille f - 女儿 个 family
husband - mari m - 丈夫 个 family
wife wives femme f - 妻子 个 family
cat - chat m - 猫 只 animal
dog - chien m - 狗 条 animal
horse - cheval m chevaux 马 匹 animal
cow - vache f - 牛 头 animal
pig - cochon m - 猪 头 animal
sheep sheep mouton m - 羊 只 animal
goat - chèvre f - 山羊 只 animal
hen - poule f - 母鸡 只 animal
duck - canard m - 鸭子 只 animal
rabbit - lapin m - 兔子 只 animal
mouse mice souris f souris 老鼠 只 animal
bird - oiseau m - 鸟 只 animal
fish fish poisson m - 鱼 条 animal
frog - grenouille f - 青蛙 只 animal
snake - serpent m - 蛇 条 animal
lion - lion m - 狮子 头 animal
tiger - tigre m - 老虎 只 animal
elephant - éléphant m - 大象 头 animal
monkey - singe m - 猴子 只 animal
bear - ours m ours 熊 只 animal
wolf wolves loup m - 狼 只 animal
fox - renard m - 狐狸 只 animal
giraffe - girafe f - 长颈鹿 只 animal
zebra - zèbre m - 斑马 匹 animal
owl - hibou m hiboux 猫头鹰 只 animal
bee - abeille f - 蜜蜂 只 animal
butterfly butterflies papillon m - 蝴蝶 只 animal
spider - araignée f - 蜘蛛 只 animal
apple - pomme f - 苹果 个 food
banana - banane f - 香蕉 根 food
orange - orange f - 橙子 个 food
pear - poire f - 梨 个 food
lemon - citron m - 柠檬 个 food
strawberry strawberries fraise f - 草莓 个 food
grape - raisin m - 葡萄 颗 food
tomato tomatoes tomate f - 西红柿 个 food
potato potatoes pomme_de_terre f pommes_de_terre 土豆 个 food
carrot - carotte f - 胡萝卜 根 food
egg - œuf m - 鸡蛋 个 food
cake - gâteau m - 蛋糕 块 food
biscuit - biscuit m - 饼干 块 food
sandwich - sandwich m - 三明治 个 food
sweet - bonbon m - 糖果 颗 food
bread - pain m - 面包 - mass
rice - riz m - 米饭 - mass
cheese - fromage m - 奶酪 - mass
butter - beurre m - 黄油 - mass
meat - viande f - 肉 - mass
soup - soupe f - 汤 - mass
salad - salade f - 沙拉 - mass
sugar - sucre m - 糖 - mass
salt - sel m - 盐 - mass
jam - confiture f - 果酱 - mass
honey - miel m - 蜂蜜 - mass
chocolate - chocolat m - 巧克力 - mass
ice_cream - glace f - 冰淇淋 - mass
water - eau f - 水 - drink
milk - lait m - 牛奶 - drink
tea - thé m - 茶 - drink
coffee - café m - 咖啡 - drink
juice - jus m - 果汁 - drink
lemonade - limonade f - 柠檬水 - drink
cup - tasse f - 杯子 个 container
glass - verre m - 杯子 个 container
bottle - bouteille f - 瓶子 个 container
bowl - bol m - 碗 个 container
plate - assiette f - 盘子 个 container
book - livre m - 书 本 school
pen - stylo m - 笔 支 school
pencil - crayon m - 铅笔 支 school
ruler - règle f - 尺子 把 school
rubber - gomme f - 橡皮 块 school
bag - sac m - 书包 个 school
notebook - cahier m - 本子 个 school
desk - bureau m - 课桌 张 school
board - tableau m - 黑板 块 school
computer - ordinateur m - 电脑 台 school
map - carte f - 地图 张 school
picture - image f - 图画 幅 school
letter - lettre f - 信 封 school
lesson - leçon f - 课 节 school
word - mot m - 词 个 school
song - chanson f - 歌 首 school
story stories histoire f - 故事 个 school
game - jeu m - 游戏 个 school
ball - ballon m - 球 个 thing
toy - jouet m - 玩具 个 thing
doll - poupée f - 娃娃 个 thing
kite - cerf-volant m cerfs-volants 风筝 只 thing
box - boîte f - 盒子 个 thing
key - clé f - 钥匙 把 thing
phone - téléphone m - 手机 部 thing
clock - horloge f - 钟 个 thing
watch - montre f - 手表 块 thing
umbrella - parapluie m - 伞 把 thing
flower - fleur f - 花 朵 thing
tree - arbre m - 树 棵 thing
table - table f - 桌子 张 thing
chair - chaise f - 椅子 把 thing
bed - lit m - 床 张 thing
sofa - canapé m - 沙发 张 thing
lamp - lampe f - 灯 盏 thing
door - porte f - 门 扇 thing
window - fenêtre f - 窗户 扇 thing
wall - mur m - 墙 面 thing
television - télévision f - 电视 台 thing
car - voiture f - 汽车 辆 thing
bus buses bus m bus 公共汽车 辆 thing
bike - vélo m - 自行车 辆 thing
train - train m - 火车 列 thing
boat - bateau m - 船 条 thing
plane - avion m - 飞机 架 thing
hat - chapeau m - 帽子 顶 clothes
shirt - chemise f - 衬衫 件 clothes
dress - robe f - 裙子 条 clothes
skirt - jupe f - 短裙 条 clothes
coat - manteau m - 大衣 件 clothes
jacket - veste f - 夹克 件 clothes
sweater - pull m - 毛衣 件 clothes
shoe - chaussure f - 鞋 只 clothes
sock - chaussette f - 袜子 只 clothes
house - maison f - 房子 座 place
flat - appartement m - 公寓 套 place
room - chambre f - 房间 个 room
kitchen - cuisine f - 厨房 个 room
bathroom - salle_de_bain f salles_de_bain 浴室 个 room
garden - jardin m - 花园 个 place
classroom - salle_de_classe f salles_de_classe 教室 间 room
school - école f - 学校 所 place
library libraries bibliothèque f - 图书馆 个 place
park - parc m - 公园 个 place
zoo - zoo m - 动物园 个 place
shop - magasin m - 商店 家 place
supermarket - supermarché m - 超市 家 place
market - marché m - 市场 个 place
restaurant - restaurant m - 饭馆 家 place
hospital - hôpital m hôpitaux 医院 家 place
station - gare f - 车站 个 place
street - rue f - 街 条 place
road - route f - 路 条 place
bridge - pont m - 桥 座 place
city cities ville f - 城市 座 place
village - village m - 村子 个 place
farm - ferme f - 农场 个 place
beach beaches plage f - 海滩 片 place
forest - forêt f - 森林 片 place
river - rivière f - 河 条 place
lake - lac m - 湖 个 place
sea - mer f - 海 片 place
mountain - montagne f - 山 座 place
field - champ m - 田野 片 place
sun - soleil m - 太阳 个 nature
moon - lune f - 月亮 个 nature
star - étoile f - 星星 颗 nature
cloud - nuage m - 云 朵 nature
sky skies ciel m - 天空 片 nature
dolphin - dauphin m - 海豚 只 animal
whale - baleine f - 鲸鱼 头 animal
camel - chameau m - 骆驼 头 animal
kangaroo - kangourou m - 袋鼠 只 animal
parrot - perroquet m - 鹦鹉 只 animal
ant - fourmi f - 蚂蚁 只 animal
squirrel - écureuil m - 松鼠 只 animal
turtle - tortue f - 乌龟 只 animal
donkey - âne m - 驴 头 animal
cherry cherries cerise f - 樱桃 颗 food
peach peaches pêche f - 桃子 个 food
onion - oignon m - 洋葱 个 food
melon - melon m - 甜瓜 个 food
pie - tarte f - 馅饼 个 food
pizza - pizza f - 比萨饼 个 food
chicken - poulet m - 鸡肉 - mass
yoghurt - yaourt m - 酸奶 - mass
paper - papier m - 纸 - mass
dictionary dictionaries dictionnaire m - 词典 本 school
question - question f - 问题 个 school
answer - réponse f - 答案 个 school
exercise - exercice m - 练习 个 school
roof - toit m - 屋顶 个 thing
shelf shelves étagère f - 架子 个 thing
cupboard - placard m - 柜子 个 thing
mirror - miroir m - 镜子 面 thing
fridge - frigo m - 冰箱 台 thing
towel - serviette f - 毛巾 条 thing
blanket - couverture f - 毯子 条 thing
pillow - oreiller m - 枕头 个 thing
spoon - cuillère f - 勺子 把 thing
fork - fourchette f - 叉子 把 thing
knife knives couteau m - 刀 把 thing
cinema - cinéma m - 电影院 家 place
museum - musée m - 博物馆 座 place
church churches église f - 教堂 座 place
bank - banque f - 银行 家 place
bakery bakeries boulangerie f - 面包店 家 place
pool - piscine f - 游泳池 个 place
airport - aéroport m - 机场 个 place
castle - château m - 城堡 座 place
square - place f - 广场 个 place
head - tête f - 头 个 body
hand - main f - 手 只 body
eye - œil m yeux 眼睛 只 body
ear - oreille f - 耳朵 只 body
nose - nez m nez 鼻子 个 body
mouth - bouche f - 嘴 张 body
foot feet pied m - 脚 只 body
arm - bras m bras 胳膊 条 body
leg - jambe f - 腿 条 body
tooth teeth dent f - 牙齿 颗 body
puppy puppies chiot m - 小狗 只 animal
kitten - chaton m - 小猫 只 animal
hill - colline f - 小山 座 place
island - île f - 岛 座 place
robot - robot m - 机器人 个 thing
puzzle - puzzle m - 拼图 个 thing
bell - cloche f - 铃 个 thing
candle - bougie f - 蜡烛 根 thing
guitar - guitare f - 吉他 把 thing
piano - piano m - 钢琴 架 thing
drum - tambour m - 鼓 面 thing
radio - radio f - 收音机 台 thing
ticket - ticket m - 票 张 thing
present - cadeau m - 礼物 个 thing
card - carte f - 卡片 张 thing
envelope - enveloppe f - 信封 个 thing
scarf scarves écharpe f - 围巾 条 clothes
glove - gant m - 手套 只 clothes
boot - botte f - 靴子 只 clothes
belt - ceinture f - 腰带 条 clothes
mushroom - champignon m - 蘑菇 个 food
nut - noix f noix 坚果 颗 food
garage - garage m - 车库 个 room
balcony balconies balcon m - 阳台 个 room
class classes classe f - 班 个 school
music - musique f - 音乐 - subject
art - art m - 美术 - subject
english - anglais m - 英语 - subject
french - français m - 法语 - subject
chinese - chinois m - 中文 - subject
sport - sport m - 体育 - subject
history - histoire f - 历史 - subject
monday - lundi m - 星期一 个 day
tuesday - mardi m - 星期二 个 day
wednesday - mercredi m - 星期三 个 day
thursday - jeudi m - 星期四 个 day
friday - vendredi m - 星期五 个 day
saturday - samedi m - 星期六 个 day
sunday - dimanche m - 星期天 个 day
pilot - pilote m - 飞行员 个 person
singer - chanteur m - 歌手 个 person
dancer - danseur m - 舞蹈演员 个 person
artist - artiste m - 艺术家 位 person
writer - écrivain m - 作家 位 person
actor - acteur m - 演员 个 person
waiter - serveur m - 服务员 个 person
postman postmen facteur m - 邮递员 个 person
scientist - scientifique m - 科学家 位 person
dentist - dentiste m - 牙医 位 person
engineer - ingénieur m - 工程师 位 person
painter - peintre m - 画家 位 person
hairdresser - coiffeur m - 理发师 位 person
vet - vétérinaire m - 兽医 位 person
mechanic - mécanicien m - 修理工 个 person
journalist - journaliste m - 记者 位 person
musician - musicien m - 音乐家 位 person
gardener - jardinier m - 园丁 个 person
photographer - photographe m - 摄影师 位 person
astronaut - astronaute m - 宇航员 个 person
firefighter - pompier m - 消防员 个 person
worker - ouvrier m - 工人 个 person
shopkeeper - commerçant m - 店主 个 person
prince - prince m - 王子 个 person
princess - princesse f - 公主 个 person
guest - invité m - 客人 位 person
tourist - touriste m - 游客 个 person
clown - clown m - 小丑 个 person
classmate - camarade m - 同学 个 person
teenager - adolescent m - 青少年 个 person
adult - adulte m - 大人 个 person
pupil - élève m - 小学生 个 person
nephew - neveu m neveux 侄子 个 family
niece - nièce f - 侄女 个 family
grandson - petit-fils m petits-fils 孙子 个 family
granddaughter - petite-fille f petites-filles 孙女 个 family
lamb - agneau m - 羊羔 只 animal
bull - taureau m - 公牛 头 animal
deer deer cerf m - 鹿 只 animal
crocodile - crocodile m - 鳄鱼 条 animal
penguin - pingouin m - 企鹅 只 animal
shark - requin m - 鲨鱼 条 animal
octopus octopuses pieuvre f - 章鱼 只 animal
crab - crabe m - 螃蟹 只 animal
snail - escargot m - 蜗牛 只 animal
worm - ver m - 虫子 条 animal
hamster - hamster m - 仓鼠 只 animal
panda - panda m - 熊猫 只 animal
koala - koala m - 考拉 只 animal
hippo - hippopotame m - 河马 头 animal
eagle - aigle m - 老鹰 只 animal
swan - cygne m - 天鹅 只 animal
goose geese oie f - 鹅 只 animal
rooster - coq m - 公鸡 只 animal
insect - insecte m - 昆虫 只 animal
dinosaur - dinosaure m - 恐龙 只 animal
ladybird - coccinelle f - 瓢虫 只 animal
hedgehog - hérisson m - 刺猬 只 animal
gorilla - gorille m - 大猩猩 只 animal
leopard - léopard m - 豹子 只 animal
seal - phoque m - 海豹 只 animal
lizard - lézard m - 蜥蜴 只 animal
plum - prune f - 李子 个 food
pineapple - ananas m ananas 菠萝 个 food
watermelon - pastèque f - 西瓜 个 food
mango mangoes mangue f - 芒果 个 food
kiwi - kiwi m - 猕猴桃 个 food
apricot - abricot m - 杏子 个 food
cucumber - concombre m - 黄瓜 根 food
cabbage - chou m choux 白菜 棵 food
sausage - saucisse f - 香肠 根 food
hamburger - hamburger m - 汉堡包 个 food
croissant - croissant m - 羊角面包 个 food
pancake - crêpe f - 薄饼 张 food
doughnut - beignet m - 甜甜圈 个 food
lollipop - sucette f - 棒棒糖 根 food
olive - olive f - 橄榄 颗 food
coconut - noix_de_coco f noix_de_coco 椰子 个 food
avocado avocados avocat m - 牛油果 个 food
pumpkin - citrouille f - 南瓜 个 food
raspberry raspberries framboise f - 树莓 颗 food
omelette - omelette f - 煎蛋卷 个 food
fig - figue f - 无花果 个 food
ham - jambon m - 火腿 - mass
beef - bœuf m - 牛肉 - mass
pork - porc m - 猪肉 - mass
bacon - bacon m - 培根 - mass
porridge - porridge m - 粥 - mass
lettuce - laitue f - 生菜 - mass
tofu - tofu m - 豆腐 - mass
garlic - ail m - 大蒜 - mass
wine - vin m - 葡萄酒 - drink
cocoa - cacao m - 可可 - drink
soda - soda m - 汽水 - drink
textbook - manuel m - 课本 本 school
calculator - calculatrice f - 计算器 个 school
test - contrôle m - 考试 次 school
exam - examen m - 考试 场 school
sentence - phrase f - 句子 个 school
pencil_case - trousse f - 铅笔盒 个 school
chalk - craie f - 粉笔 支 school
poster - affiche f - 海报 张 school
timetable - emploi_du_temps m emplois_du_temps 课程表 张 school
globe - globe m - 地球仪 个 school
backpack - sac_à_dos m sacs_à_dos 背包 个 school
drawing - dessin m - 画 幅 school
photo - photo f - 照片 张 thing
camera - appareil_photo m appareils_photo 相机 台 thing
motorbike - moto f - 摩托车 辆 thing
taxi - taxi m - 出租车 辆 thing
truck - camion m - 卡车 辆 thing
helicopter - hélicoptère m - 直升机 架 thing
rocket - fusée f - 火箭 枚 thing
ship - navire m - 轮船 艘 thing
tractor - tracteur m - 拖拉机 辆 thing
comb - peigne m - 梳子 把 thing
brush - brosse f - 刷子 把 thing
toothbrush - brosse_à_dents f brosses_à_dents 牙刷 把 thing
bucket - seau m - 水桶 个 thing
basket - panier m - 篮子 个 thing
vase - vase m - 花瓶 个 thing
armchair - fauteuil m - 扶手椅 把 thing
carpet - tapis m tapis 地毯 块 thing
oven - four m - 烤箱 台 thing
kettle - bouilloire f - 水壶 个 thing
teapot - théière f - 茶壶 个 thing
ring - bague f - 戒指 枚 thing
necklace - collier m - 项链 条 thing
wallet - portefeuille m - 钱包 个 thing
coin - pièce f - 硬币 枚 thing
stamp - timbre m - 邮票 张 thing
newspaper - journal m journaux 报纸 份 thing
magazine - magazine m - 杂志 本 thing
comic - bande_dessinée f bandes_dessinées 漫画书 本 thing
postcard - carte_postale f cartes_postales 明信片 张 thing
tent - tente f - 帐篷 顶 thing
flag - drapeau m - 旗子 面 thing
leaf leaves feuille f - 树叶 片 thing
stone - pierre f - 石头 块 thing
shell - coquillage m - 贝壳 个 thing
feather - plume f - 羽毛 根 thing
button - bouton m - 扣子 颗 thing
bracelet - bracelet m - 手链 条 thing
cushion - coussin m - 靠垫 个 thing
plant - plante f - 植物 棵 thing
ladder - échelle f - 梯子 把 thing
hammer - marteau m - 锤子 把 thing
bench - banc m - 长椅 张 thing
gate - portail m - 大门 扇 thing
suitcase - valise f - 行李箱 个 thing
parcel - colis m colis 包裹 个 thing
statue - statue f - 雕像 座 thing
fountain - fontaine f - 喷泉 座 thing
swing - balançoire f - 秋千 架 thing
sandcastle - château_de_sable m châteaux_de_sable 沙堡 座 thing
snowman snowmen bonhomme_de_neige m bonshommes_de_neige 雪人 个 thing
nest - nid m - 鸟窝 个 thing
cage - cage f - 笼子 个 thing
drawer - tiroir m - 抽屉 个 thing
cap - casquette f - 鸭舌帽 顶 clothes
tie - cravate f - 领带 条 clothes
raincoat - imperméable m - 雨衣 件 clothes
sandal - sandale f - 凉鞋 只 clothes
slipper - chausson m - 拖鞋 只 clothes
town - ville f - 小镇 个 place
country countries pays m pays 国家 个 place
post_office - poste f - 邮局 个 place
factory factories usine f - 工厂 家 place
office - bureau m - 办公室 间 place
hotel - hôtel m - 酒店 家 place
theatre - théâtre m - 剧院 家 place
stadium - stade m - 体育场 个 place
desert - désert m - 沙漠 片 place
jungle - jungle f - 丛林 片 place
cave - grotte f - 山洞 个 place
pond - étang m - 池塘 个 place
valley - vallée f - 山谷 个 place
harbour - port m - 港口 个 place
pharmacy pharmacies pharmacie f - 药店 家 place
bookshop - librairie f - 书店 家 place
tower - tour f - 塔 座 place
palace - palais m palais 宫殿 座 place
bedroom - chambre f - 卧室 间 room
living_room - salon m - 客厅 个 room
corridor - couloir m - 走廊 条 room
attic - grenier m - 阁楼 个 room
cellar - cave f - 地下室 个 room
dining_room - salle_à_manger f salles_à_manger 餐厅 个 room
rainbow - arc-en-ciel m arcs-en-ciel 彩虹 道 nature
planet - planète f - 行星 颗 nature
rock - rocher m - 岩石 块 nature
finger - doigt m - 手指 根 body
toe - orteil m - 脚趾 个 body
face - visage m - 脸 张 body
neck - cou m - 脖子 个 body
knee - genou m genoux 膝盖 个 body
shoulder - épaule f - 肩膀 个 body
geography - géographie f - 地理 - subject
spanish - espagnol m - 西班牙语 - subject
german - allemand m - 德语 - subject
scooter - trottinette f - 滑板车 辆 thing
skateboard - skateboard m - 滑板 个 thing
torch torches lampe_de_poche f lampes_de_poche 手电筒 个 thing
tray - plateau m - 托盘 个 thing
rope - corde f - 绳子 根 thing
helmet - casque m - 头盔 顶 clothes
jumper - pull m - 毛衣 件 clothes
apron - tablier m - 围裙 条 clothes
dragon - dragon m - 龙 条 animal
unicorn - licorne f - 独角兽 只 animal
pigeon - pigeon m - 鸽子 只 animal
starfish starfish étoile_de_mer f étoiles_de_mer 海星 只 animal
peanut - cacahuète f - 花生 颗 food
muffin - muffin m - 松饼 个 food
circus circuses cirque m - 马戏团 个 place
aquarium - aquarium m - 水族馆 个 place
home - maison f - 家 个 home
"""

# ------------------------------------------------------------------------------------------ adjectives
# en | comparative (- : none) | fr m.sg (f.sg m.pl f.pl, or - for the regular forms) | pre/post | m.sg before a vowel
# (- : the same) | zh before a noun | 的 after it (de/-) | zh after "to be" | kind: plain (很小) colour (是黑色的)
_ADJECTIVES = """
small smaller petit - - - pre - 小 - 小 plain
big bigger grand - - - pre - 大 - 大 plain
little - petit - - - pre - 小 - 小 plain
tall taller grand - - - pre - 很高 的 高 plain
short shorter petit - - - pre - 很矮 的 矮 plain
long longer long longue longs longues pre - 长 - 长 plain
old older vieux vieille vieux vieilles pre vieil 老 - 老 plain
young younger jeune - - - pre - 年轻 的 年轻 plain
new newer nouveau nouvelle nouveaux nouvelles pre nouvel 新 - 新 plain
good better bon bonne bons bonnes pre - 好 - 好 plain
bad worse mauvais - - - pre - 坏 - 坏 plain
beautiful - beau belle beaux belles pre bel 漂亮 的 漂亮 plain
pretty - joli - - - pre - 好看 的 好看 plain
nice - gentil gentille gentils gentilles post - 友好 的 友好 plain
fat - gros grosse gros grosses pre - 胖 - 胖 plain
thin - mince - - - post - 瘦 - 瘦 plain
black - noir - - - post - 黑 - 黑色 colour
white - blanc blanche blancs blanches post - 白 - 白色 colour
red - rouge - - - post - 红 - 红色 colour
blue - bleu - - - post - 蓝 - 蓝色 colour
green - vert - - - post - 绿 - 绿色 colour
yellow - jaune - - - post - 黄 - 黄色 colour
brown - marron marron marron marron post - 棕 - 棕色 colour
grey - gris - - - post - 灰 - 灰色 colour
pink - rose - - - post - 粉红 - 粉红色 colour
happy - content - - - post - 开心 的 开心 plain
sad - triste - - - post - 难过 的 难过 plain
tired - fatigué - - - post - 疲惫 的 累 plain
hungry - affamé - - - post - 饥饿 的 饿 plain
angry - fâché - - - post - 生气 的 生气 plain
hot - chaud - - - post - 热 - 热 plain
cold - froid - - - post - 冷 - 冷 plain
warm - chaud - - - post - 暖和 的 暖和 plain
clean - propre - - - post - 干净 的 干净 plain
dirty - sale - - - post - 脏 - 脏 plain
fast faster rapide - - - post - 很快 的 快 plain
slow slower lent - - - post - 很慢 的 慢 plain
strong stronger fort - - - post - 强壮 的 强壮 plain
quiet - calme - - - post - 安静 的 安静 plain
easy - facile - - - post - 简单 的 容易 plain
difficult - difficile - - - post - 很难 的 难 plain
funny - drôle - - - post - 有趣 的 有趣 plain
kind - gentil gentille gentils gentilles post - 善良 的 善良 plain
clever cleverer intelligent - - - post - 聪明 的 聪明 plain
rich richer riche - - - post - 有钱 的 有钱 plain
poor poorer pauvre - - - post - 贫穷 的 穷 plain
heavy heavier lourd - - - post - 很重 的 重 plain
full - plein - - - post - 满满 的 满 state
empty - vide - - - post - 空 - 空 state
cheap - bon_marché bon_marché bon_marché bon_marché post - 便宜 的 便宜 plain
expensive - cher chère chers chères post - 很贵 的 贵 plain
favourite - préféré - - - post - 最喜欢 的 - attr
sick - malade - - - post - 生病 的 病 change
busy - occupé - - - post - 忙碌 的 忙 plain
cute - mignon mignonne mignons mignonnes post - 可爱 的 可爱 plain
wet - mouillé - - - post - 湿 - 湿 plain
dry drier sec sèche secs sèches post - 干 - 干 plain
round - rond - - - post - 圆 - 圆 plain
purple - violet violette violets violettes post - 紫 - 紫色 colour
ugly uglier laid - - - post - 难看 的 丑 plain
delicious - délicieux délicieuse délicieux délicieuses post - 好吃 的 好吃 plain
fresh - frais fraîche frais fraîches post - 新鲜 的 新鲜 plain
soft softer doux douce doux douces post - 柔软 的 软 plain
hard harder dur - - - post - 很硬 的 硬 plain
noisy noisier bruyant - - - post - 吵闹 的 吵 plain
brave braver courageux courageuse courageux courageuses post - 勇敢 的 勇敢 plain
shy - timide - - - post - 害羞 的 害羞 plain
lazy lazier paresseux paresseuse paresseux paresseuses post - 懒 - 懒 plain
polite - poli - - - post - 有礼貌 的 有礼貌 plain
friendly friendlier sympathique - - - post - 友善 的 友善 plain
famous - célèbre - - - post - 有名 的 有名 plain
dangerous - dangereux dangereuse dangereux dangereuses post - 危险 的 危险 plain
thirsty - assoiffé - - - post - 口渴 的 渴 plain
scared - effrayé - - - post - 害怕 的 害怕 plain
proud - fier fière fiers fières post - 自豪 的 自豪 plain
strange - bizarre - - - post - 奇怪 的 奇怪 plain
interesting - intéressant - - - post - 有意思 的 有意思 plain
boring - ennuyeux ennuyeuse ennuyeux ennuyeuses post - 无聊 的 无聊 plain
weak weaker faible - - - post - 虚弱 的 虚弱 plain
sporty - sportif sportive sportifs sportives post - 爱运动 的 爱运动 plain
curious - curieux curieuse curieux curieuses post - 好奇 的 好奇 plain
"""

# ---------------------------------------------------------------------------------------------- verbs
# en | 3sg | -ing | French je tu il nous vous ils | infinitive | zh | objects (- : none; kinds a verb takes) | skill
# (skill: "can" is savoir / 会 for it, as a learned ability: je sais nager, 我会游泳)
_VERBS = """
see sees seeing vois vois voit voyons voyez voient voir 看见 any -
watch watches watching regarde regardes regarde regardons regardez regardent regarder 看 screen -
like likes liking aime aimes aime aimons aimez aiment aimer 喜欢 any -
love loves loving aime aimes aime aimons aimez aiment aimer 爱 any -
want wants wanting veux veux veut voulons voulez veulent vouloir 想要 thingish -
have has having ai as a avons avez ont avoir 有 own -
eat eats eating mange manges mange mangeons mangez mangent manger 吃 food -
drink drinks drinking bois bois boit buvons buvez boivent boire 喝 drink -
read reads reading lis lis lit lisons lisez lisent lire 读 text skill
write writes writing écris écris écrit écrivons écrivez écrivent écrire 写 writable skill
draw draws drawing dessine dessines dessine dessinons dessinez dessinent dessiner 画 drawable skill
cook cooks cooking cuisine cuisines cuisine cuisinons cuisinez cuisinent cuisiner 做饭 - skill
buy buys buying achète achètes achète achetons achetez achètent acheter 买 buyable -
open opens opening ouvre ouvres ouvre ouvrons ouvrez ouvrent ouvrir 打开 openable -
close closes closing ferme fermes ferme fermons fermez ferment fermer 关上 openable -
help helps helping aide aides aide aidons aidez aident aider 帮 anim -
know knows knowing connais connais connaît connaissons connaissez connaissent connaître 认识 people -
feed feeds feeding nourris nourris nourrit nourrissons nourrissez nourrissent nourrir 喂 animal -
wash washes washing lave laves lave lavons lavez lavent laver 洗 washable -
sleep sleeps sleeping dors dors dort dormons dormez dorment dormir 睡觉 - -
swim swims swimming nage nages nage nageons nagez nagent nager 游泳 - skill
run runs running cours cours court courons courez courent courir 跑步 - -
walk walks walking marche marches marche marchons marchez marchent marcher 散步 - -
sing sings singing chante chantes chante chantons chantez chantent chanter 唱歌 - skill
dance dances dancing danse danses danse dansons dansez dansent danser 跳舞 - skill
play plays playing joue joues joue jouons jouez jouent jouer 玩 - -
work works working travaille travailles travaille travaillons travaillez travaillent travailler 工作 - -
cry cries crying pleure pleures pleure pleurons pleurez pleurent pleurer 哭 - -
laugh laughs laughing rit ris rit rions riez rient rire 笑 - -
jump jumps jumping saute sautes saute sautons sautez sautent sauter 跳 - -
fly flies flying vole voles vole volons volez volent voler 飞 - -
go goes going vais vas va allons allez vont aller 去 - -
come comes coming viens viens vient venons venez viennent venir 来 - -
live lives living habite habites habite habitons habitez habitent habiter 住 - -
study studies studying étudie étudies étudie étudions étudiez étudient étudier 学习 - -
wait waits waiting attends attends attend attendons attendez attendent attendre 等 - -
smile smiles smiling souris souris sourit sourions souriez sourient sourire 微笑 - -
shout shouts shouting crie cries crie crions criez crient crier 大喊 - -
travel travels travelling voyage voyages voyage voyageons voyagez voyagent voyager 旅行 - -
ski skis skiing skie skies skie skions skiez skient skier 滑雪 - skill
skate skates skating patine patines patine patinons patinez patinent patiner 滑冰 - skill
drive drives driving conduis conduis conduit conduisons conduisez conduisent conduire 开车 - skill
count counts counting compte comptes compte comptons comptez comptent compter 数数 - skill
paint paints painting peins peins peint peignons peignez peignent peindre 画画 - skill
sell sells selling vends vends vend vendons vendez vendent vendre 卖 buyable -
catch catches catching attrape attrapes attrape attrapons attrapez attrapent attraper 抓 animal -
chase chases chasing poursuis poursuis poursuit poursuivons poursuivez poursuivent poursuivre 追 anim -
hate hates hating déteste détestes déteste détestons détestez détestent détester 讨厌 any -
"""

#: "laugh": je ris (the table's first column was written for the regular verbs; rire is "ris ris rit")
_FIXES = {"laugh": ("ris", "ris", "rit", "rions", "riez", "rient")}


@dataclass(frozen=True)
class Noun:
    en: str
    en_pl: str | None  # None: a mass noun (water, bread): no plural, no a/numbers
    fr: str
    fr_pl: str
    gender: str  # m | f
    zh: str
    mw: str | None  # measure word (个 只 本 …); None for a mass noun
    kind: str

    @property
    def mass(self) -> bool:
        return self.en_pl is None


@dataclass(frozen=True)
class Adjective:
    en: str
    comparative: str | None
    fr: tuple[str, str, str, str]  # m.sg f.sg m.pl f.pl
    preposed: bool
    fr_vowel: str | None  # bel, vieil, nouvel: the m.sg form before a vowel
    zh: str
    zh_de: bool
    zh_pred: str
    kind: str  # plain | colour


@dataclass(frozen=True)
class Verb:
    en: str
    en_3sg: str
    en_ing: str
    fr: tuple[str, str, str, str, str, str]
    fr_inf: str
    zh: str
    objects: str | None  # a class of nouns (see OBJECT_KINDS); None: intransitive
    skill: bool  # "can" = savoir / 会


def _en_plural(word: str) -> str:
    if word.endswith(("s", "sh", "ch", "x", "z")):
        return word + "es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _fr_plural(word: str) -> str:
    head, _, rest = word.partition("_")  # pomme_de_terre: the first word takes the plural
    if head.endswith(("s", "x", "z")):
        plural = head
    elif head.endswith(("eau", "eu")):
        plural = head + "x"
    elif head.endswith("al"):
        plural = head[:-2] + "aux"
    else:
        plural = head + "s"
    return plural + ("_" + rest if rest else "")


def _nouns() -> dict[str, Noun]:
    nouns = {}
    for line in _NOUNS.strip().splitlines():
        en, en_pl, fr, gender, fr_pl, zh, mw, kind = line.split()
        mass = kind in ("mass", "drink", "subject")
        plural = None if mass else (_en_plural(en) if en_pl == "-" else en_pl).replace("_", " ")
        nouns[en] = Noun(en.replace("_", " "), plural, fr,
                         _fr_plural(fr) if fr_pl == "-" else fr_pl, gender, zh, None if mw == "-" else mw, kind)
    return nouns


def _adjectives() -> dict[str, Adjective]:
    adjectives = {}
    for line in _ADJECTIVES.strip().splitlines():
        en, comp, m, f, mpl, fpl, place, vowel, zh, de, pred, kind = line.split()
        if f == "-":
            f = m if m.endswith("e") else m + "e"
            mpl = m if m.endswith(("s", "x")) else m + "s"
            fpl = f + "s"
        adjectives[en] = Adjective(en, None if comp == "-" else comp, (m, f, mpl, fpl), place == "pre",
                                   None if vowel == "-" else vowel, zh, de == "的", pred, kind)
    return adjectives


def _verbs() -> dict[str, Verb]:
    verbs = {}
    for line in _VERBS.strip().splitlines():
        en, s3, ing, *fr, inf, zh, objects, skill = line.split()
        forms = _FIXES.get(en, tuple(fr))
        verbs[en] = Verb(en, s3, ing, (forms[0], forms[1], forms[2], forms[3], forms[4], forms[5]), inf, zh,
                         None if objects == "-" else objects, skill == "skill")
    return verbs


NOUNS: dict[str, Noun] = _nouns()
ADJECTIVES: dict[str, Adjective] = _adjectives()
VERBS: dict[str, Verb] = _verbs()

#: which noun kinds a verb's object class takes
OBJECT_KINDS: dict[str, frozenset[str]] = {
    "any": frozenset({"person", "family", "animal", "food", "thing", "school", "clothes", "place", "mass", "drink",
                      "subject"}),
    "screen": frozenset({"animal", "person", "thing"}),
    "thingish": frozenset({"food", "thing", "school", "clothes", "drink", "mass"}),
    "own": frozenset({"animal", "thing", "school", "clothes", "family", "body"}),
    "food": frozenset({"food", "mass"}),
    "drink": frozenset({"drink"}),
    "text": frozenset({"text"}),
    "writable": frozenset({"text"}),
    "drawable": frozenset({"animal", "thing", "place"}),
    "buyable": frozenset({"food", "thing", "school", "clothes", "mass", "drink"}),
    "openable": frozenset({"openable"}),
    "anim": frozenset({"person", "family", "animal"}),
    "people": frozenset({"person", "family"}),
    "animal": frozenset({"animal"}),
    "washable": frozenset({"thing", "clothes", "container", "animal"}),
}
#: nouns that are texts (read, write) or can be opened (open, close) whatever their kind
TEXTS: frozenset[str] = frozenset({"book", "letter", "story", "word", "map", "newspaper", "magazine", "comic", "postcard"})
#: what one writes (a letter, a story, a word; not a book or a map at A1)
WRITABLE: frozenset[str] = frozenset({"letter", "story", "word", "postcard"})
#: what a container holds (a cup of tea, a bowl of soup, a plate of rice; not a plate of tea)
CONTAINS: dict[str, frozenset[str]] = {
    "cup": frozenset({"tea", "coffee", "milk", "water", "juice"}),
    "glass": frozenset({"water", "milk", "juice", "lemonade"}),
    "bottle": frozenset({"water", "milk", "juice", "lemonade"}),
    "bowl": frozenset({"soup", "rice", "salad"}),
    "plate": frozenset({"rice", "meat", "salad", "cheese", "chicken"}),
}
#: places that are nobody's (not "my station")
PUBLIC: frozenset[str] = frozenset({"station", "library", "airport", "hospital", "church", "museum", "cinema", "bank",
                                    "supermarket", "market", "zoo", "restaurant", "beach", "bakery", "pool", "shop",
                                    "park", "square", "bridge", "street", "road", "river", "lake", "sea", "forest",
                                    "mountain", "island", "hill", "castle", "field", "town", "country", "post_office", "factory",
                                    "hotel", "theatre", "stadium", "desert", "jungle", "cave", "valley", "harbour",
                                    "pharmacy", "bookshop", "tower", "palace", "circus", "aquarium"})
OPENABLE: frozenset[str] = frozenset({"door", "window", "box", "book", "bag", "bottle", "gate", "suitcase", "parcel",
                                      "drawer"})

#: which adjectives a teacher puts with which kind of noun (a happy child, a red car; not a sad bottle)
_PEOPLE = "small big tall short old young good bad beautiful pretty nice fat thin happy sad tired hungry angry " \
          "strong quiet funny kind clever rich poor busy sick ugly brave shy lazy polite " \
          "friendly famous thirsty scared proud strange interesting boring weak sporty curious noisy"
_ANIMALS = "small big little old young beautiful pretty fat thin black white brown grey happy sad tired " \
           "hungry angry strong quiet funny clever cute sick fast slow dirty clean ugly brave lazy " \
           "noisy dangerous thirsty scared strange weak curious"
_CLOTHES_EXTRA = "wet dry"
_THINGS = "small big little long old new beautiful pretty black white red blue green yellow brown grey pink " \
          "clean dirty heavy cheap expensive favourite purple soft hard ugly strange interesting boring"
_FOOD = "small big good bad red green yellow hot cold favourite cheap expensive delicious fresh"
_MASS = "hot cold good bad favourite cheap expensive delicious fresh"
_PLACES = "small big old new beautiful pretty clean dirty quiet long cold warm favourite noisy famous " \
          "dangerous strange boring interesting ugly"
ADJECTIVES_FOR: dict[str, frozenset[str]] = {
    **dict.fromkeys(("person", "family"), frozenset(_PEOPLE.split())),
    "animal": frozenset(_ANIMALS.split()),
    **dict.fromkeys(("thing", "school", "container"), frozenset(_THINGS.split())),
    "clothes": frozenset(_THINGS.split() + _CLOTHES_EXTRA.split()),
    "food": frozenset(_FOOD.split()),
    **dict.fromkeys(("mass", "drink"), frozenset(_MASS.split())),
    **dict.fromkeys(("place", "room"), frozenset(_PLACES.split())),
    **dict.fromkeys(("nature", "day"), frozenset()),
    "body": frozenset({"small", "big", "long"}),
    "subject": frozenset({"favourite"}),
}
#: adjectives said of a subject with "to be" beyond those (the soup is hot; the lesson is easy; the bag is full)
PREDICATES_FOR: dict[str, frozenset[str]] = {
    **ADJECTIVES_FOR,
    **{k: ADJECTIVES_FOR[k] | {"cold", "hot"} for k in ("person", "family", "animal")},
    **{k: ADJECTIVES_FOR[k] | {"full", "empty", "easy", "difficult", "fast", "slow"} - {"favourite"}
       for k in ("thing", "school", "clothes", "container")},
    "food": ADJECTIVES_FOR["food"] - {"favourite"},
    **dict.fromkeys(("mass", "drink"), ADJECTIVES_FOR["mass"] - {"favourite"}),
}


#: nouns there is one of (one's mother, the sun): never plural in the grammar
UNIQUE: frozenset[str] = frozenset({"wife", "husband", "mother", "father", "mum", "dad", "king", "queen", "sun", "moon",
                                    "sky", "sea", "grandmother", "grandfather"})
#: what does not move: not "there is a wall on the table", not "the door is in the garden"
FIXED: frozenset[str] = frozenset({"wall", "door", "window", "board", "tree", "sky", "sun", "moon", "star", "cloud", "gate",
                                   "statue", "fountain", "swing", "snowman", "sandcastle", "bench"})


#: French words that begin with an h but do not elide (le hibou; an "h aspiré")
H_ASPIRE: frozenset[str] = frozenset({"hibou", "hiboux", "haut", "héros", "hamster", "hamsters", "hérisson", "hérissons",
                                      "hamburger", "hamburgers", "huit"})  # est-ce que huit chatons…, le huit
FR_VOWELS = "aeiouyéèêëâàîïôûœ"


def fr_elides_before(word: str) -> bool:
    """Whether le / la / de / que / je / ne lose their vowel before ``word`` (l'école, l'hôpital; le hibou)."""
    w = word.lower()
    if w in H_ASPIRE or not w:
        return False
    if w[0] == "h":
        return True
    return w[0] in FR_VOWELS and not w.startswith("yaourt")


def lemma_count() -> int:
    """English dictionary entries of the lexicon (nouns, adjectives, verbs; the grammar's own words are counted there)."""
    return len(NOUNS) + len(ADJECTIVES) + len(VERBS)
